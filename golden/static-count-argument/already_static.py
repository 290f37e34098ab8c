"""Must not change: counts already auxiliary, left at their default, or in jax code (static_argnames is separate)."""
from functools import partial

import jax
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


@math.jit_compile(auxiliary_args='n')
def repeat_doubling(x, n: int):
    for _ in range(n):
        x = x * 2
    return x


@partial(jax.jit, static_argnames=('n',))
def jax_doubling(x, n: int):
    for _ in range(n):
        x = x * 2
    return x


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    return [repeat_doubling(x, 2), repeat_doubling(x, 3)]
