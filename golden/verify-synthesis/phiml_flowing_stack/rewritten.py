"""PhiML: a limiter whose only caller passes a stack of rods built from `linspace`, inside a loop
that feeds the limiter its own result. Nothing at the call is a literal: the input is described
from the values flowing in (the stack's first iteration) and the rewrite is verified on it."""
from phiml import math
from phiml.math import batch, spatial

SYNTHESIS = {"verdicts": {"limit": "verified"}}


@math.jit_compile
def limit(u, cap):
    return math.where(u > cap, cap, u)


def main():
    x = math.linspace(0, 1, spatial(x=16))
    rods = math.stack([x, 2 * x, 3 * x], batch(rod=3))
    for _ in range(4):
        rods = limit(rods, 1.5)
    return rods
