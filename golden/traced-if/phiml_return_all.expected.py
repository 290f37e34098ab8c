"""`if (x > 0).all:` in a PhiML jit function: jax and tensorflow raise, torch silently keeps the first branch."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML201:14"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile
def double_or_flip(x):
    return math.where(math.all(x > 0, dim=math.shape), x * 2, -x)


def golden_run():
    positive = math.tensor([1., 2.], spatial('x'))
    return [double_or_flip(positive), double_or_flip(-positive)]
