"""`n: int` used as a trip count in a PhiML jit function: traced, so jax/tensorflow fail and torch keeps
the first count. Named in `auxiliary_args`, it stays a Python int (one trace per value)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML204:14"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerIntegerConversionError", "torch": "differs"},
}


@math.jit_compile(auxiliary_args='n')
def repeat_doubling(x, n: int):
    for _ in range(n):
        x = x * 2
    return x


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    return [repeat_doubling(x, 2), repeat_doubling(x, 3)]
