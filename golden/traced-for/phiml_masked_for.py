"""PhiML, a trip count computed from a tensor: a bounded masked loop (unsafe fix) with a visible bound."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML202:15"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "ConcretizationTypeError", "torch": "differs", "tensorflow": "TypeError"},
}


@math.jit_compile
def repeat_doubling(x, n):
    for _ in range(int(n)):
        x = x * 2
    return x


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    return [repeat_doubling(x, math.tensor(2)), repeat_doubling(x, math.tensor(3))]
