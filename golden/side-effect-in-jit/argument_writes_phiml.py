"""PhiML: a jit-compiled function writes into the dict of fields it is given. `jit_compile` traces
the function with a copy of the dict, so the caller's dict keeps its old values on every jitting
backend (numpy runs the function eagerly and updates it)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML501:17"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "differs", "torch": "differs", "tensorflow": "differs"},
}


@math.jit_compile
def relax(fields, rate):
    residual = fields["target"] - fields["u"]
    fields["u"] = fields["u"] + rate * residual
    return math.max(abs(residual))


def golden_run():
    fields = {"u": math.zeros(spatial(x=3)), "target": math.tensor([1., 2., 3.], spatial('x'))}
    errors = [relax(fields, 0.5) for _ in range(3)]
    return errors, fields["u"]
