"""PhiML, a trip count computed from a tensor: a bounded masked loop (unsafe fix) with a visible bound."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML202:15"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "ConcretizationTypeError", "torch": "differs", "tensorflow": "TypeError"},
}


REPEAT_DOUBLING_MAX_ITERATIONS = 3


@math.jit_compile
def repeat_doubling(x, n):
    for i in range(REPEAT_DOUBLING_MAX_ITERATIONS):
        active = i < n
        x = math.where(active, x * 2, x)
    return x


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    return [repeat_doubling(x, math.tensor(2)), repeat_doubling(x, math.tensor(3))]
