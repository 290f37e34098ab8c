"""A jit-compiled step logs an intermediate into a module-level list: the log holds tracers (jax),
out-of-scope tensors (tensorflow) or the first call's values (torch)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML501:16"],
}

LOG = []


@math.jit_compile
def step(x):
    y = x * 2
    LOG.append(y)
    return y + 1


def run():
    return [step(math.tensor([1.0, 2.0], spatial('x')) * i) for i in range(1, 4)], LOG
