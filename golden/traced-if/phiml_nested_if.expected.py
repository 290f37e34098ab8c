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
    y = math.where(math.all(x > 0, dim=math.shape), math.where(math.any(x > 10, dim=math.shape), x / 10, x), -x)
    return y


def golden_run():
    return [nested(math.tensor(v, spatial('x'))) for v in ([1., 20.], [1., 2.], [-1., 2.])]
