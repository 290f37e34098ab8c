"""A non-tensor argument that is a new object of a class without value equality on every
iteration: PhiML compares keys with `==`, which for such an object is identity, so every call
traces and every trace is kept. `forget_traces=True` bounds the cache; the message names the
stable key (create it once, or give the class value equality)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:29"],
    "backends": ["numpy", "jax", "torch"],
    "traces": [4, 4],
    "cache": [4, 1],
    "messages": {"PML401:29": "`Damping` has no value equality"},
}


class Damping:
    def __init__(self, rate):
        self.rate = rate


@math.jit_compile(forget_traces=True)
def relax(x, damping):
    return x * (1 - damping.rate) + 0.1 * math.sin(x)


def run(x, steps):
    for _ in range(steps):
        x = relax(x, Damping(0.2))
    return x


def golden_run():
    return run(math.tensor([1.0, -0.5, 2.5], spatial('x')), 4)
