"""Side effects in functions that are not traced are ordinary Python: not reported."""
from phiml import math

GOLDEN = {
    "findings": [],
}

LOG = []


def step(x):
    y = x * 2
    LOG.append(y)
    print(y)
    return y + 1


@math.jit_compile
def fast(x):
    return x * 2


def driver(x):
    y = fast(x)
    LOG.append(y)  # outside the traced function: the real value
    return y
