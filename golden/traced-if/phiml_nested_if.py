"""Nested traced ifs: the inner one is converted first, then the outer one (two fixpoint passes)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML201:14", "PML201:15"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile
def nested(x):
    if (x > 0).all:
        if (x > 10).any:
            y = x / 10
        else:
            y = x
    else:
        y = -x
    return y


def golden_run():
    return [nested(math.tensor(v, spatial('x'))) for v in ([1., 20.], [1., 2.], [-1., 2.])]
