"""Batched loss: vmap of a jitted function built at module level."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {"findings": ["PML301:13"], "framework": "jax", "backends": ["jax"], "compiles": [1, 1]}


def loss(x, w, scale):
    return jnp.sum(jnp.tanh(x * w)) * scale


batched_loss = jax.jit(jax.vmap(loss, in_axes=(0, None, None)), static_argnums=2)


def golden_run():
    x = jnp.asarray(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6))
    w = jnp.asarray(np.arange(6, dtype=np.float32) / 6)
    return [batched_loss(x * k, w, 3) for k in range(3)]
