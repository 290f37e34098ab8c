"""A module-level helper called from a jit function: its parameter inherits the caller's tracedness."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML201:13"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


def limiter(v, strength):
    return math.where(math.all(v > 0, dim=math.shape), v * strength, v)


@math.jit_compile(auxiliary_args='strength')
def step(u, strength):
    return u + limiter(u * 0.5, strength)


def golden_run():
    u = math.tensor([1., 2.], spatial('x'))
    return [step(u, 3.), step(-u, 3.), step(u, 3.)]
