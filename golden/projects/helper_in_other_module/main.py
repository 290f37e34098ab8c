"""The jitted step calls a helper of another module with a traced argument: the helper's `if` is on a tracer.

Analysed alone, physics.py has no jit context; with the project index, `limiter` is traced from `step`.
"""
from phiml import math
from phiml.math import spatial

from physics import limiter

GOLDEN = {
    "findings": ["physics.py:PML201:6"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile(auxiliary_args='strength')
def step(u, strength):
    return u + limiter(u * 0.5, strength)


def golden_run():
    u = math.tensor([1., 2.], spatial('x'))
    return [step(u, 3.), step(-u, 3.), step(u, 3.)]
