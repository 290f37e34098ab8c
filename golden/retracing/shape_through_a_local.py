"""The growing tensor is first bound to a local, then passed: its shape still changes every call."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:22"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [5, 5],
    "cache": [5, 1],
}


@math.jit_compile
def energy(x):
    return math.sum(x ** 2, 'x')


def run():
    out = []
    for i in range(5):
        x = math.sin(math.range(spatial(x=8 + i)) * 0.37)
        out.append(energy(x))
    return out


def golden_run():
    return run()
