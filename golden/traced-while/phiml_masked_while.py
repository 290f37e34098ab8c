"""PhiML has no while loop: a bounded masked loop with a visible bound (unsafe fix)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML203:15"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile
def halve(x):
    while (x > 1).any:
        x = x / 2
    return x


def golden_run():
    return [halve(math.tensor([4., 8.], spatial('x'))), halve(math.tensor([64., 2.], spatial('x')))]
