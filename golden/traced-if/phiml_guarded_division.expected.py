"""A division guarded by the condition: `where` evaluates it everywhere, so the fix is unsafe and
uses the double-`where` pattern (the denominator is replaced by 1 where the branch is not taken)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML201:16"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile
def normalise(x, norm):
    condition = math.all(norm != 0, dim=math.shape)
    return math.where(condition, x / math.where(condition, norm, 1), x)


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    return [normalise(x, math.tensor([2., 4.], spatial('x'))), normalise(x, math.tensor([0., 4.], spatial('x')))]
