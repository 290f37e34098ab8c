"""Map options other than dims make the map more than a loop: reported without a fix."""
from phiml import math
from phiml.math import batch

GOLDEN = {"findings": ["PML304:14"], "unsafe_fixes": True}


@math.jit_compile
def energy(u):
    return math.sum(u ** 2, "x")


def run(u):
    return math.map(energy, u, dims=batch, expand_results=True)
