"""A branch with a side effect cannot be selected with `where`: reported, not rewritten."""
from phiml import math

GOLDEN = {
    "findings": ["PML201:11", "PML501:12", "PML201:21"],
}


@math.jit_compile
def noisy(x, log):
    if (x > 0).all:
        log.append(x)
        y = x
    else:
        y = -x
    return y


@math.jit_compile
def partial_branch(x):
    if (x > 0).all:
        z = x * 2
    return z
