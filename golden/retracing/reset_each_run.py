"""A level reset at the top of every run and raised only after the call: the call always sees the
reset value, so one trace serves every run. Flow matters here: the loop does change `level`, but
never before the call reads it. Not reported."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [1, 1],
}


@math.jit_compile(auxiliary_args='level')
def smooth(x, level: int):
    for _ in range(level):
        x = x + 0.1 * math.cos(x)
    return x


def runs(x, count):
    history = []
    for run in range(count):
        level = 2
        x = smooth(x, level)
        level += run
        history.append(level)
    return x, history


def golden_run():
    return runs(math.tensor([0.0, 1.0, 2.0], spatial('x')), 4)
