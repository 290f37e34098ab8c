"""`from phi.math import divide_no_nan, isfinite as finite`: the import brings the PhiML function under
the old local name; the uses stay as they are."""
import numpy as np
from phi.math import divide_no_nan, isfinite as finite, spatial, tensor

GOLDEN = {
    "findings": ["PML602:4", "PML602:4"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


def golden_run():
    x = tensor(np.array([1.0, -1.0, 0.0], dtype=np.float32), spatial("x"))
    y = tensor(np.array([0.5, 0.0, 0.0], dtype=np.float32), spatial("x"))
    return divide_no_nan(x, y), finite(x / y)
