"""`jax.vmap(f)` of a function using `lax.switch`, and a helper it calls with `lax.cond`."""
import jax
import jax.numpy as jnp
from jax import lax

GOLDEN = {
    "findings": ["PML507:12", "PML507:16"],
}


def clamp(x):
    return lax.cond(x > 1, lambda v: jnp.ones_like(v), lambda v: v, x)


def pick(i, x):
    return lax.switch(i, [jnp.sin, jnp.cos, clamp], x)


batched_pick = jax.vmap(pick)
