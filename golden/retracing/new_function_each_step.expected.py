"""A lambda built in the loop and passed to a jit function: PhiML keys traces on the function object."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:20", "PML101:20"],  # PML101 cannot lift it: it captures `i`
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [4, 4],
    "cache": [4, 1],
}


@math.jit_compile(forget_traces=True)
def apply(x, flux):
    return x - 0.1 * flux(x)


def run(x):
    for i in range(4):
        x = apply(x, lambda v: v * (1 + i))
    return x


def golden_run():
    return run(math.tensor([1.0, 2.0, 3.0], spatial('x')))
