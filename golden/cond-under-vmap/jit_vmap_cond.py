"""`jax.jit(jax.vmap(f))` and `@jax.vmap` under `@jax.jit`: still vmapped."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML507:13"],
}


@jax.jit
@jax.vmap
def relu_or_tanh(x):
    return jax.lax.cond(x > 0, jnp.tanh, lambda v: v * 0.01, x)
