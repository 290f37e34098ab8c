"""A loop count every call passes as a Python int: auxiliary (one trace per count), never a masked loop.

A masked loop would put a made-up number of copies of the body into every trace and cut larger counts
short; the calls `smooth(u, 2)` and `smooth(u, 5)` say the count is configuration."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML204:17"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerIntegerConversionError", "torch": "differs"},
    "traces": [1, 2],  # the original traces once (wrongly); the rewrite once per count
}


@math.jit_compile(auxiliary_args='passes')
def smooth(u, passes):
    for _ in range(passes):
        u = 0.5 * u + 0.25 * (math.shift(u, (-1,), padding='periodic')[0] + math.shift(u, (1,), padding='periodic')[0])
    return u


def golden_run():
    u = math.tensor([0., 4., 0., 0.], spatial('x'))
    return [smooth(u, 2), smooth(u, 5)]
