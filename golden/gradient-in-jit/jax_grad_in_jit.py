"""`jax.grad` inside `jax.jit` is how jax is meant to be used: not reported."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
}


def loss(x):
    return jnp.sum(x ** 2)


@jax.jit
def step(x):
    return x - 0.1 * jax.grad(loss)(x)
