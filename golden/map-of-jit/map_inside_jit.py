"""math.map over batch dims inside a jitted body unrolls one copy per slice."""
import numpy as np
from phiml import math
from phiml.math import batch, spatial

GOLDEN = {
    "findings": ["PML304:20"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [1, 1],
}


def smooth(u, weight):
    return u * (1 - weight) + weight * math.mean(u, "x")


@math.jit_compile
def smooth_all(u):
    return math.map(smooth, u, 0.5, dims=batch("examples"))


def golden_run():
    u = math.tensor(np.arange(12, dtype=np.float32).reshape(3, 4), batch("examples"), spatial("x"))
    return smooth_all(u)
