"""An int parameter used as a dimension size: `spatial(x=n)` needs a Python int at trace time."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML204:13"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "ConcretizationTypeError", "torch": "differs"},
}


@math.jit_compile
def padded(x, n: int):
    return math.concat([x, math.zeros(spatial(x=n))], 'x')


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    return [padded(x, 2), padded(x, 3)]
