"""Must not change: `while` loops on Python values inside jit functions."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


@math.jit_compile(auxiliary_args='levels')
def pyramid(x, levels):
    level = 0
    while level < levels:  # a Python counter against an auxiliary argument
        x = x * 0.5
        level += 1
    size = x.shape.get_size('x')
    while size > 1:  # a shape
        size //= 2
    return x * size


def golden_run():
    x = math.tensor([4., 8.], spatial('x'))
    return [pyramid(x, 2), pyramid(x, 3)]
