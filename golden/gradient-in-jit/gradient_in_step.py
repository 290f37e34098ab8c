"""`math.gradient` evaluated inside a jit-compiled step: fails on tensorflow."""
from phiml import math

GOLDEN = {
    "findings": ["PML504:15"],
}


def loss(x):
    return math.l2_loss(x)


@math.jit_compile
def step(x):
    grad = math.gradient(loss, 'x', get_output=False)(x)
    return x - 0.1 * grad
