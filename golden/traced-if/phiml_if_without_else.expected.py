"""`if` without `else`: the variable keeps its value when the condition is false."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML201:16"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile
def clamp_mean(x):
    m = math.mean(x)
    y = x - m
    y = math.where(math.any(y > 1, dim=math.shape), y * 0.5, y)
    return y


def golden_run():
    return [clamp_mean(math.tensor([0., 4.], spatial('x'))), clamp_mean(math.tensor([0., 1.], spatial('x')))]
