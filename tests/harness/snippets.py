"""Small sources several test modules share."""

# A PhiML jit function with an `if` on a traced value: one PML201 finding, fixed with `math.where`.
TRACED_IF = """\
from phiml import math


@math.jit_compile
def clamp(x):
    if x.mean > 1:
        x = x * 2
    return x
"""
