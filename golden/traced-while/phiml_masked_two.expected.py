"""PhiML masked loop carrying values, one computed from another; its bound is the counter condition `it < 6`."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML203:17"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


SETTLE_MAX_ITERATIONS = 6


@math.jit_compile
def settle(x):
    steps = math.zeros_like(x)
    it = 0
    for it in range(SETTLE_MAX_ITERATIONS):
        active = math.any(x > 1, dim=math.shape)
        x, steps = math.where(active, x * 0.5, x), math.where(active, steps + math.cast((x * 0.5) > 0.5, float), steps)
    return x, steps


def golden_run():
    return [settle(math.tensor([4., 8.], spatial('x'))), settle(math.tensor([64., 2.], spatial('x')))]
