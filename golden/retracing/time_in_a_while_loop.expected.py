"""A simulated time `t += dt` passed as an auxiliary argument in a `while` loop that runs to an end
time: a new value on every call, so PhiML traces every call and keeps every trace."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:22"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [4, 4],
    "cache": [4, 1],
}


@math.jit_compile(auxiliary_args='t', forget_traces=True)
def forced(u, t: float):
    return u + 0.1 * math.sin(u) * (1.0 if t < 0.5 else -1.0)


def simulate(u, t_end, dt=0.25):
    t = 0.0
    while t < t_end:
        u = forced(u, t)
        t += dt
    return u


def golden_run():
    return simulate(math.tensor([0.0, 0.5, 1.0], spatial('x')), 1.0)
