"""A jitted function with a flag. No call in this module: its callers are train.py and main.py."""
import jax
import jax.numpy as jnp
import functools


@functools.partial(jax.jit, static_argnames=('total',))
def pick(v, total):
    if total:
        return jnp.sum(v)
    return v * 2
