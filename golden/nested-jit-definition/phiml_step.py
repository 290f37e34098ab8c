"""A @math.jit_compile step defined inside the simulation function: traced again on every call."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML102:14"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [3, 1],
}


def simulate(u, steps):
    @math.jit_compile
    def step(u):
        return u + 0.1 * math.laplace(u)

    for _ in range(steps):
        u = step(u)
    return u


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    return [simulate(u * i, 4) for i in range(1, 4)]
