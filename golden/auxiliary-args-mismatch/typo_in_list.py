"""One misspelled name in a comma-separated list is corrected; the correct ones are kept."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML205:13"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs"},
}


@math.jit_compile(auxiliary_args='scale, flipped')
def step(x, scale, flip: bool):
    if flip:
        x = -x
    return x * scale


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    return [step(x, 2., True), step(x, 2., False)]
