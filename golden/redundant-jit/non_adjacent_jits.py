"""`@jit @vmap @jit`: the outer jit compiles the vmap; the inner one is inlined and goes."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {"findings": ["PML301:10", "PML303:9"], "framework": "jax", "backends": ["jax"], "compiles": [1, 1]}


@jax.jit
@jax.vmap
@jax.jit
def double(x):
    return jnp.sin(x) * 2


def golden_run():
    return double(jnp.asarray(np.arange(6, dtype=np.float32).reshape(3, 2)))
