"""`auxiliary_args='step'` but the parameter is `steps`: PhiML ignores the name and traces `steps`."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML205:13"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerIntegerConversionError", "torch": "differs"},
}


@math.jit_compile(auxiliary_args='steps')
def advance(x, steps: int):
    for _ in range(steps):
        x = x * 0.5
    return x


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    return [advance(x, 2), advance(x, 3)]
