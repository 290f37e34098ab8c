"""A `bool` flag branched on inside a PhiML jit function, next to an existing auxiliary argument."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML204:13"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs"},
}


@math.jit_compile(auxiliary_args='scale,flip')
def step(x, scale, flip: bool = False):
    if flip:
        x = -x
    return x * scale


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    return [step(x, 2., flip=True), step(x, 2., flip=False)]
