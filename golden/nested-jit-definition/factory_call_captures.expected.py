"""Unsafe fix: the jit decorator is a factory call with no arguments, `math.jit_compile()`; the captured
float is added as its only keyword, `auxiliary_args` (before, the empty argument list stopped the run
with an internal error)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML102:17"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [3, 2],
}


@math.jit_compile(auxiliary_args='rate')
def _relax_step(u, rate):
    return u + rate * math.laplace(u)


def relax(u, rate):
    return _relax_step(_relax_step(u, rate=rate), rate=rate)


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    return [relax(u * i, 0.1 * (i % 2 + 1)) for i in range(1, 4)]
