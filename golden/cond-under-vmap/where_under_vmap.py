"""`jnp.where` under vmap computes both sides by design, and says so: not reported."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
}


@jax.vmap
def relu(x):
    return jnp.where(x > 0, x, 0.0)
