"""`step = math.jit_compile(f, auxiliary_args=...)` at module level, driven by an accumulating time."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:23"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [5, 5],
    "cache": [5, 1],
}


def _advance(u, t):
    return u + 0.05 * math.sin(u + t)


advance = math.jit_compile(_advance, auxiliary_args='t')


def simulate(u, steps, dt=0.25):
    t = 0.0
    for _ in range(steps):
        u = advance(u, t)
        t += dt
    return u


def golden_run():
    return simulate(math.tensor([0.0, 0.5, 1.0], spatial('x')), 5)
