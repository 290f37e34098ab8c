"""The module reads the trace cache (`trace_check`): forgetting traces would change what it sees."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:19"],
}


@math.jit_compile(auxiliary_args='k')
def scale(x, k):
    return x * k


def run(x, steps):
    seen = []
    for i in range(steps):
        seen.append(math.trace_check(scale, x, 0.5 * i)[0])
        x = scale(x, 0.5 * i)
    return x, seen


def golden_run():
    return run(math.tensor([1.0, 2.0], spatial('x')), 3)
