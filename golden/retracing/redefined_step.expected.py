"""A jit function defined twice, as notebooks do when a later cell replaces an earlier one: the loop
calls the second def, and that one gets the fix. The first keeps its decorator as written."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:27"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [4, 4],
    "cache": [4, 1],
}


@math.jit_compile(auxiliary_args='k')
def damp(x, k):
    return x * k


@math.jit_compile(auxiliary_args='k', forget_traces=True)
def damp(x, k):
    return x * math.exp(-k) + 0.1 * math.sin(x)


def run(x, steps):
    k = 0.5
    for _ in range(steps):
        x = damp(x, k)
        k += 0.25
    return x


def golden_run():
    return run(math.tensor([0.5, 1.0, -2.0], spatial('x')), 4)
