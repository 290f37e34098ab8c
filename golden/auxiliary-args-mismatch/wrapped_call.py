"""The same typo where the function is wrapped by a call."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML205:19"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerIntegerConversionError", "torch": "differs"},
}


def advance(x, steps: int):
    for _ in range(steps):
        x = x * 0.5
    return x


fast_advance = math.jit_compile(advance, auxiliary_args='stpes')


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    return [fast_advance(x, 2), fast_advance(x, 3)]
