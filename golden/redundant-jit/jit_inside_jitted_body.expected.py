"""A jit built inside a function that PhiML is already tracing."""
import numpy as np
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML303:20"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": {"jax": [4, 1], "torch": [7, 1], "tensorflow": [4, 1]},  # torch runs the body twice per trace
}


def laplace_step(u):
    return u + 0.2 * (math.shift(u, (-1, 1), padding=0)[0] + math.shift(u, (-1, 1), padding=0)[1] - 2 * u)


@math.jit_compile
def simulate(u):
    for _ in range(3):
        u = laplace_step(u)
    return u


def golden_run():
    u = math.tensor(np.cos(np.linspace(0, 2, 8)).astype(np.float32), spatial("x"))
    return [simulate(u), simulate(u * 2)]
