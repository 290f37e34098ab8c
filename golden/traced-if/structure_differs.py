"""Branches that return different structures (a tuple and an array): no selection can merge them; reported."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:13"],
    "unsafe_fixes": True,
}


@jax.jit
def split_if_positive(x):
    if jnp.all(x > 0):
        return x[:1], x[1:]
    return x
