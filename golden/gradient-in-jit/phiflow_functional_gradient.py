"""PhiFlow's `field.functional_gradient` is `math.gradient` (phi/field/__init__.py re-exports it from
phi.math, where `functional_gradient = gradient`), and `field.jit_compile` is `math.jit_compile`:
jit of the gradient function fails on tensorflow whatever the spelling."""
from phi import field
from phiml import math

GOLDEN = {
    "findings": ["PML504:16"],
}


def loss(x):
    return math.l2_loss(x)


descend = field.jit_compile(field.functional_gradient(loss, 'x', get_output=False))
