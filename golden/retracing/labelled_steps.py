"""A string argument made from the loop counter: PhiML keys traces on non-tensor values."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:21"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [4, 4],
    "cache": [4, 1],
}


@math.jit_compile
def step(x, tag: str):
    return x + 0.1 * math.cos(x)


def run(x):
    out = []
    for i in range(4):
        x = step(x, f"step-{i}")
        out.append(x)
    return out


def golden_run():
    return run(math.tensor([0.0, 1.0, 2.0], spatial('x')))
