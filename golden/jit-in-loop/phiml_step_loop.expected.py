"""A PhiML simulation loop that builds the jitted step on every iteration."""
import numpy as np
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML302:19"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [5, 2],  # the first input is a plain tensor, later ones are step outputs
}


def diffuse(u):
    return u + 0.1 * (math.shift(u, (-1, 1), padding=0)[0] + math.shift(u, (-1, 1), padding=0)[1] - 2 * u)


diffuse_jit = math.jit_compile(diffuse)


def simulate(u, steps):
    for _ in range(steps):
        u = diffuse_jit(u)
    return u


def golden_run():
    u = math.tensor(np.sin(np.linspace(0, 3, 16)).astype(np.float32), spatial("x"))
    return simulate(u, 5)
