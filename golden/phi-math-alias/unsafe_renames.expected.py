"""`degrees` (PhiFlow 2.1-2.4: degrees to radians with pi = 3.1415) and `unpack_dims` (PhiFlow 2.0-2.2)
are gone: renamed with --unsafe-fixes (`degrees_to_radians` uses the exact pi)."""
import numpy as np
from phi.flow import *

GOLDEN = {
    "findings": ["PML602:16", "PML602:17"],
    "unsafe_fixes": True,
    "migration": {"backends": ["numpy", "jax", "torch", "tensorflow"], "original_error": "AttributeError"},
}


def golden_run():
    angles = math.tensor(np.array([0.0, 45.0, 90.0], dtype=np.float32), spatial("x"))
    flat = math.tensor(np.arange(6, dtype=np.float32), spatial("xy"))
    grid = math.unpack_dim(flat, "xy", spatial(x=2, y=3))
    return math.degrees_to_radians(angles), grid.x[1]


def golden_expected():
    # PhiFlow 2.4 `degrees(deg)`: deg * (3.1415 / 180); the values agree with the exact pi to 3e-5 (rtol 1e-4)
    return np.array([0.0, 45.0, 90.0]) * (3.1415 / 180.0), np.array([3.0, 4.0, 5.0])
