"""A jit-decorated def inside the loop body: a new jit function with an empty cache every iteration.

PML102 leaves defs in loops alone (where they exist is part of the logic); nothing lifts it, since
it reads the loop variable. Reported with the stable key: one def taking the rate as an argument.
"""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:20"],
    "backends": ["numpy", "jax"],
    "traces": [3, 3],  # one per iteration, although the key never changes
    "messages": {"PML401:20": "reads `rate`"},
}


def decay(x, rates):
    for rate in rates:
        @math.jit_compile
        def relax(v):
            return v * math.exp(-rate) + 0.05 * math.cos(v)
        x = relax(x)
    return x


def golden_run():
    return decay(math.tensor([0.3, -1.2, 2.0], spatial('x')), [0.1, 0.2, 0.4])
