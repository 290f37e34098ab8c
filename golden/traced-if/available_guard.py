"""Must not change: `x.available and ...` is False while tracing, so its right side never runs under jit.

PhiML's idiom for checks that only make sense on concrete values. The whole condition, `elif` included, is
static: not rewritten and not reported."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


@math.jit_compile
def checked(x):
    if x.available and (x > 100).any:
        raise ValueError("too large")
    elif x.available and (x < -100).any:
        raise ValueError("too small")
    if not x.available or (x < 50).all:
        x = x * 2
    return x


def golden_run():
    return [checked(math.tensor([1., 2.], spatial('x')))]
