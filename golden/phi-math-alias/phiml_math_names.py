"""PhiFlow 2 names used through `phiml.math`, which never had them: AttributeError on phiml 1.16."""
import numpy as np
from phiml import math
from phiml.math import channel, spatial

GOLDEN = {
    "findings": ["PML602:17", "PML602:18", "PML602:19"],
    "migration": {"backends": ["numpy", "jax", "torch", "tensorflow"], "original_error": "AttributeError"},
}


def golden_run():
    a = math.tensor(np.array([1.0, 2.0, 0.0], dtype=np.float32), spatial("x"))
    b = math.tensor(np.array([2.0, 0.0, 0.0], dtype=np.float32), spatial("x"))
    v = math.tensor(np.array([[3.0, 4.0], [0.0, 1.0]], dtype=np.float32), spatial("x"), channel(vector="x,y"))
    return (
        math.divide_no_nan(a, b),
        math.isfinite(a / b),
        math.vec_abs(v),
    )


def golden_expected():
    # PhiFlow 2: divide_no_nan = x / y with 0 where y == 0; isfinite element-wise; vec_abs = vector length
    return np.array([0.5, 0.0, 0.0]), np.array([True, False, False]), np.array([5.0, 1.0])
