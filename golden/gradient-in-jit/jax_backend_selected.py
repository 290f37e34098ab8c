"""Must not change: the program selects jax (`from phi.jax.flow import *`), which computes a gradient
inside `jit_compile` correctly; the tensorflow failure cannot happen here."""
from phi.jax.flow import *

GOLDEN = {
    "findings": [],
}


def loss(x):
    return math.l2_loss(x)


@jit_compile
def step(x):
    grad = math.gradient(loss, 'x', get_output=False)(x)
    return x - 0.1 * grad
