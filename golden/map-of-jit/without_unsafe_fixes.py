"""Without --unsafe-fixes the same map is reported with its fix, and left unchanged."""
from phiml import math
from phiml.math import batch

GOLDEN = {"findings": ["PML304:14"]}


@math.jit_compile
def energy(u):
    return math.sum(u ** 2, "x")


def run(u):
    return math.map(energy, u, dims=batch)
