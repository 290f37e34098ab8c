"""PhiML masked loop carrying two values, one computed from the other."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML203:16"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile
def settle(x):
    steps = math.zeros_like(x)
    while (x > 1).any:
        x = x * 0.5
        steps = steps + math.cast(x > 0.5, float)
    return x, steps


def golden_run():
    return [settle(math.tensor([4., 8.], spatial('x'))), settle(math.tensor([64., 2.], spatial('x')))]
