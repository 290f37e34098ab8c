"""Two limiters with a Python `if` on an array. main.py jit-traces only `soft_limit`."""
import jax.numpy as jnp


def soft_limit(x, limit):
    if jnp.max(x) > limit:
        return x / jnp.max(x) * limit
    return x


def hard_limit(x, limit):
    if jnp.max(x) > limit:
        return jnp.clip(x, -limit, limit)
    return x
