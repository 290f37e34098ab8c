"""An auxiliary refinement level raised only on some iterations (`if ...: level += 1`): it never
comes back to an earlier value, so each raise traces once and no trace is reused. PhiML keeps every
one of them: `forget_traces=True` bounds the cache; the message says it re-traces each time the
level changes, not on every call."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:27"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [3, 3],
    "cache": [3, 1],
    "messages": {"PML401:27": "each time `level` changes"},
}


@math.jit_compile(auxiliary_args='level', forget_traces=True)
def smooth(x, level: int):
    for _ in range(level):
        x = x + 0.1 * math.cos(x)
    return x


def run(x, steps):
    level = 1
    for step in range(steps):
        x = smooth(x, level)
        if step % 2 == 1:
            level += 1
    return x


def golden_run():
    return run(math.tensor([0.0, 1.0, 4.0, 1.0, 0.0], spatial('x')), 6)
