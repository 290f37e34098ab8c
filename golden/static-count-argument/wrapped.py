"""A function jit-compiled by a call, not a decorator: `auxiliary_args` is added to the call."""
from phiml import math

GOLDEN = {
    "findings": ["PML204:9"],
}


def repeat_doubling(x, n: int):
    for _ in range(n):
        x = x * 2
    return x


fast_doubling = math.jit_compile(repeat_doubling)
