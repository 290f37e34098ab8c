"""Must not change: every auxiliary name is a parameter (also through **kwargs and custom_gradient)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


@math.jit_compile(auxiliary_args='n')
def repeat_doubling(x, n: int):
    for _ in range(n):
        x = x * 2
    return x


@math.jit_compile(auxiliary_args='mode')
def configurable(x, **kwargs):
    return x * 2 if kwargs.get('mode') == 'double' else x


def golden_run():
    x = math.tensor([1., 2.], spatial('x'))
    return [repeat_doubling(x, 2), configurable(x, mode='double'), configurable(x, mode='plain')]
