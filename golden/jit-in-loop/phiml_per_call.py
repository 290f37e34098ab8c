"""jit_compile built on every call of a function: PhiML re-traces on every call."""
import numpy as np
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML302:20"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [4, 1],
}


# Physics.
def pressure_step(p, rhs):
    return p + 0.25 * (rhs - p)


def relax(p, rhs):
    """One relaxation sweep."""
    return math.jit_compile(pressure_step)(p, rhs)


def golden_run():
    p = math.zeros(spatial(x=8))
    rhs = math.tensor(np.arange(8, dtype=np.float32), spatial("x"))
    for _ in range(4):
        p = relax(p, rhs)
    return p
