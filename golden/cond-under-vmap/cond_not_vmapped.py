"""`lax.cond` under `jax.jit` only: a real branch, one side runs. Not reported."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
}


@jax.jit
def safe_log(x):
    return jax.lax.cond(jnp.all(x > 0), jnp.log, jnp.zeros_like, x)
