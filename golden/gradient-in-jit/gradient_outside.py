"""The portable form: the gradient is taken outside, the rest is jit-compiled. Not reported."""
from phiml import math

GOLDEN = {
    "findings": [],
}


def loss(x):
    return math.l2_loss(x)


grad_fn = math.gradient(loss, 'x', get_output=False)


@math.jit_compile
def apply(x, grad):
    return x - 0.1 * grad


def step(x):
    return apply(x, grad_fn(x))
