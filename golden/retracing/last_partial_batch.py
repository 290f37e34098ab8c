"""Batches cut with a fixed width (`x[i:i + size]`, `x[k * size:(k + 1) * size]`): every batch has
one shape except perhaps the last, partial one — one extra trace, not a leak. Not reported, and
no `forget_traces=True` (which would drop the full-batch trace if the loop ran again)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax"],
    "traces": [3, 3],  # loss: full batches and the last one; mean_square: one shape
}


@math.jit_compile
def loss(batch):
    return math.sum(batch ** 2)


@math.jit_compile
def mean_square(batch):
    return math.mean(batch ** 2)


def epoch(x, size):
    total = 0
    for i in range(0, x.shape.get_size('x'), size):
        total += loss(x.x[i:i + size])
    for k in range(x.shape.get_size('x') // size):
        total += mean_square(x.x[k * size:(k + 1) * size])
    return total


def golden_run():
    return epoch(math.range(spatial(x=10)) * 0.1, 4)
