"""PhiML has no while loop: a bounded masked loop with a visible bound (unsafe fix)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML203:15"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


HALVE_MAX_ITERATIONS = 100


@math.jit_compile
def halve(x):
    for _ in range(HALVE_MAX_ITERATIONS):
        active = math.any(x > 1)
        x = math.where(active, x / 2, x)
    return x


def golden_run():
    return [halve(math.tensor([4., 8.], spatial('x'))), halve(math.tensor([64., 2.], spatial('x')))]
