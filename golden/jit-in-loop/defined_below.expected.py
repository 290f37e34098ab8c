"""The common layout: the driver first, the step below it. The wrapper goes after the step."""
import numpy as np
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML302:15"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [3, 1],
}


def run(u, steps):
    for _ in range(steps):
        u = step_jit(u)
    return u


def step(u):
    return u * 0.5 + 1


step_jit = math.jit_compile(step)


def golden_run():
    return run(math.tensor(np.arange(4, dtype=np.float32), spatial("x")), 3)


@math.jit_compile
def decorated_in_between(u):
    return u
