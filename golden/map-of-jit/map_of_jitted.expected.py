"""math.map of a jitted function over a batch dimension: call it on the batched tensor."""
import numpy as np
from phiml import math
from phiml.math import batch, spatial

GOLDEN = {
    "findings": ["PML304:21"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [1, 1],
}


@math.jit_compile
def energy(u):
    return math.sum(u ** 2, "x") + math.mean(math.sin(u), "x")


def golden_run():
    u = math.tensor(np.arange(24, dtype=np.float32).reshape(4, 6) / 10, batch("examples"), spatial("x"))
    return energy(u)
