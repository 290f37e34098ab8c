"""PhiML: a flag every call passes as a Python bool (no annotation, no default): auxiliary, not `math.where`.

`math.where` would evaluate `x / math.max(x)` for both values of the flag; the flag is configuration."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML204:15"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs"},
}


@math.jit_compile(auxiliary_args='normalize')
def scale(x, normalize):
    if normalize:
        x = x / math.max(x)
    return x * 2


def golden_run():
    x = math.tensor([1., 4.], spatial('x'))
    return [scale(x, True), scale(x, False), scale(x, True)]
