"""An auxiliary argument that takes a new value on every iteration: one trace per call, all kept."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:20"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [6, 6],  # forget_traces=True does not save the tracing: only a stable key would
    "cache": [6, 1],  # but PhiML now holds one trace instead of all of them
}


@math.jit_compile(auxiliary_args='k')
def damp(x, k):
    return x * math.exp(-k) + 0.1 * math.sin(x)


def run(x, steps):
    for i in range(steps):
        x = damp(x, 0.5 + 0.1 * i)
    return x


def golden_run():
    x = math.tensor([0.5, 1.0, -2.0, 3.0], spatial('x'))
    return run(x, 6)
