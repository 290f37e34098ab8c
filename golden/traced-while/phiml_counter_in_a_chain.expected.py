"""PhiML masked loop whose counter is one of four conjuncts: the other three, joined again without it, decide
which iterations count. The levels of that new chain are no code of the file; each is read from its parts."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML203:17"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


SETTLE_MAX_ITERATIONS = 8


@math.jit_compile
def settle(x, y):
    it = 0
    for it in range(SETTLE_MAX_ITERATIONS):
        active = (math.any(x > 1, dim=math.shape) & math.all(y > 0, dim=math.shape)) & math.all(x < 100, dim=math.shape)
        x = math.where(active, x * 0.5, x)
        y = math.where(active, y - 1, y)
    return x, y


def golden_run():
    return [settle(math.tensor([4., 8.], spatial('x')), math.tensor([5., 6.], spatial('x'))),
            settle(math.tensor([64., 2.], spatial('x')), math.tensor([2., 9.], spatial('x'))),
            settle(math.tensor([500., 2.], spatial('x')), math.tensor([9., 9.], spatial('x')))]
