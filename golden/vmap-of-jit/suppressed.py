"""A suppression comment keeps the line as it is."""
import jax
import jax.numpy as jnp

GOLDEN = {"findings": []}


def f(x):
    return jnp.cos(x)


batched = jax.vmap(jax.jit(f))  # phiml-rewrite: ignore[PML301]
