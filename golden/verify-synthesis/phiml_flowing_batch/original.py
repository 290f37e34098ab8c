"""PhiML: the rewrite centres each rod on the mean of all of them, not its own; wrong only when
the input has a batch dimension. The changed function sees one only through a parameter: `main`
passes a stack of rods to `simulate`, which passes it on. Falsified at the sizes the calls give."""
from phiml import math
from phiml.math import batch, spatial

SYNTHESIS = {"verdicts": {"centre": "falsified"}, "reasons": {"centre": "values differ"},
             "inputs": {"centre": "u=float32[rod="}}


@math.jit_compile
def centre(u):
    return u - math.mean(u, spatial)


def simulate(u, steps):
    for _ in range(steps):
        u = centre(u) * 0.5
    return u


def main():
    x = math.linspace(-1, 1, spatial(x=8))
    rods = math.stack([x, x ** 2], batch(rod=2))
    return simulate(rods, 3)
