"""Every branch returns, the last through the `return` after the `if`: the selection takes that `return`
in, and the comments above it stay, after the `if`'s own."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML201:16"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile
def double_or_flip(x):
    # positive inputs are doubled
    # the others are flipped
    return math.where(math.all(x > 0, dim=math.shape), x * 2, -x)


def golden_run():
    positive = math.tensor([1., 2.], spatial('x'))
    return [double_or_flip(positive), double_or_flip(-positive)]
