"""An elif chain assigning two values, with `and` and `.any` on traced values."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML201:15"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "AssertionError", "torch": "AssertionError", "tensorflow": "AssertionError"},
}


@math.jit_compile
def classify(x, y):
    # pick the regime from the data
    condition = (math.sum(x) > 0) & math.any(y > 0, dim=math.shape)
    condition_2 = math.all(x < -1, dim=math.shape)
    scale = math.where(condition, x * 2, math.where(condition_2, x, -x))
    offset = math.where(condition, y, math.where(condition_2, -y, y * 3))
    return scale + offset


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    y = math.tensor([-1., 3.], spatial('x'))
    return [classify(x, y), classify(-x * 2, y), classify(-x * 0.1, -y), classify(x, -y)]
