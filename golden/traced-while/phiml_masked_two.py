"""PhiML masked loop carrying values, one computed from another; its bound is the counter condition `it < 6`."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML203:17"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile
def settle(x):
    steps = math.zeros_like(x)
    it = 0
    while (x > 1).any and it < 6:
        x = x * 0.5
        steps = steps + math.cast(x > 0.5, float)
        it += 1
    return x, steps


def golden_run():
    return [settle(math.tensor([4., 8.], spatial('x'))), settle(math.tensor([64., 2.], spatial('x')))]
