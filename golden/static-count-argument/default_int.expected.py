"""No annotation, only a literal int default: the fix is unsafe (a caller could pass a tensor)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML204:14"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerIntegerConversionError", "torch": "differs"},
}


@math.jit_compile(auxiliary_args='iterations')
def smooth(x, iterations=1):
    for _ in range(iterations):
        x = (x + math.shift(x, (-1,), padding='periodic')[0]) * 0.5
    return x


def golden_run():
    x = math.tensor([1., 2., 4.], spatial('x'))
    return [smooth(x, iterations=2), smooth(x, iterations=3)]
