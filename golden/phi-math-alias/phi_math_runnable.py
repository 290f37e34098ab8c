"""`from phi import math` still has the aliases in phiflow 3.4: the rename runs the same function."""
import numpy as np
from phi import math
from phi.math import spatial

GOLDEN = {
    "findings": ["PML602:14", "PML602:20"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


@math.jit_compile
def normalized(x, weights):
    return math.divide_no_nan(x, weights)


def golden_run():
    x = math.tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32), spatial("x"))
    w = math.tensor(np.array([2.0, 0.0, 4.0], dtype=np.float32), spatial("x"))
    return normalized(x, w), math.isfinite(x / w)
