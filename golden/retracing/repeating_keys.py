"""Keys that may come back (`schedule[i]`, `i % 2`): reported at info level, never fixed — the cache serves repeats."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:18", "PML401:19"],
    "backends": ["numpy", "jax"],
}


@math.jit_compile(auxiliary_args='k')
def relax(x, k):
    return x + 0.1 * k * math.sin(x)


def run(x, schedule):
    for i in range(len(schedule)):
        x = relax(x, schedule[i])
        x = relax(x, i % 2)
    return x


def golden_run():
    return run(math.tensor([0.2, 0.4], spatial('x')), [1, 2, 1, 2])
