"""Maps over spatial/all dims, or of functions that are not jitted and outside jit: a different computation."""
from phiml import math
from phiml.math import batch, spatial

GOLDEN = {"findings": [], "unsafe_fixes": True}


@math.jit_compile
def energy(u):
    return math.sum(u ** 2)


def plain(u):
    return u * 2


def run(u):
    a = math.map(energy, u, dims=spatial)
    b = math.map(energy, u)
    c = math.map(plain, u, dims=batch)
    d = list(map(plain, [u, u]))
    return a, b, c, d
