"""PhiML: a `jit_compile` over 80 Python steps traces 80 copies of the step (`make bench unrolled`
measures trace size and compile time against the step jitted alone and looped outside). PhiML has
no loop primitive: reported, never rewritten. Three steps are fine."""
import numpy as np
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML206:17"],
    "messages": {"PML206:17": "80 iterations, each a copy of its body"},
    "backends": ["numpy", "jax"],  # an 80-step unroll compiles for half a minute on tensorflow
}


@math.jit_compile
def relax(u):
    for _ in range(80):
        u = u + 0.1 * (math.shift(u, (-1, 1), padding=0)[0] - u)
    for _ in range(3):
        u = u * 0.5
    return u


def golden_run():
    u = math.tensor(np.sin(np.linspace(0, 3, 16)).astype(np.float32), spatial('x'))
    return relax(u)
