"""`lax.cond` in a vmapped function: both branches run for every element."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML507:12"],
}


@jax.vmap
def safe_log(x):
    return jax.lax.cond(x > 0, jnp.log, lambda v: jnp.zeros_like(v), x)
