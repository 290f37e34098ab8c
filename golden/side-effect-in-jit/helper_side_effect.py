"""A helper called from a jit-compiled function is traced too: its side effect happens once per trace."""
from phiml import math

GOLDEN = {
    "findings": ["PML501:12"],
}

HISTORY = []


def record(u):
    HISTORY.append(math.mean(u))
    return u


@math.jit_compile
def step(u):
    return record(u * 0.5)
