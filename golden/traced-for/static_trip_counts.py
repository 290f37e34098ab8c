"""Must not change: loops whose trip count is static inside jit functions."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}

STEPS = 2


@math.jit_compile(auxiliary_args='n')
def smooth(x, n):
    for _ in range(n):  # an auxiliary argument
        x = (x + math.shift(x, (-1,), padding='periodic')[0]) * 0.5
    for _ in range(STEPS):  # a module constant
        x = x * 1
    for i in range(x.shape.get_size('x')):  # a shape
        x = x + i * 0
    for dim in x.shape.spatial.names:  # shape names
        x = x + 0 * len(dim)
    return x


def golden_run():
    x = math.tensor([1., 2., 4.], spatial('x'))
    return [smooth(x, 2), smooth(x, 3)]
