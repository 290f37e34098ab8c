"""A history that grows by concatenation and is handed to a jit function each step: a new shape every call."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:23"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [5, 5],
    "cache": [5, 1],
}


@math.jit_compile
def summary(history):
    return math.mean(history, 'x'), math.max(history, 'x')


def run(u, steps):
    history = u
    stats = []
    for _ in range(steps):
        history = math.concat([history, history * 0.5], 'x')
        stats.append(summary(history))
    return stats


def golden_run():
    return run(math.tensor([1.0, -2.0], spatial('x')), 5)
