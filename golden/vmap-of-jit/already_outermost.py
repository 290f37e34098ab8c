"""jit is already outermost everywhere: nothing to do."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {"findings": []}


def f(x):
    return jnp.cos(x)


fast = jax.jit(jax.vmap(f))
grads = jax.vmap(jax.grad(f))


@jax.jit
@partial(jax.vmap, in_axes=0)
def g(x):
    return x * 2
