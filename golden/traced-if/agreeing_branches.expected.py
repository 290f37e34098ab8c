"""Branches that provably agree: both elementwise in `x`, which every call passes as float data: a safe `math.where`.

The evidence for the dtype is the calls (`math.tensor([...floats...])`): `x * 0.5` and `-x` are then both
float arrays shaped like `x`."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML201:17"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile
def damp(x):
    y = math.where(math.any(x > 1, dim=math.shape), x * 0.5, -x)
    return y


def golden_run():
    return [damp(math.tensor([4., 1.], spatial('x'))), damp(math.tensor([0.5, 1.], spatial('x')))]
