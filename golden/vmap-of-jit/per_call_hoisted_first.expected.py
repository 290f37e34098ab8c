"""Inside a function, swapping alone would recompile every call: PML302 hoists, then PML301 swaps."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {"findings": ["PML301:13", "PML302:14"], "framework": "jax", "backends": ["jax"], "compiles": [1, 1]}


def norm(x):
    return jnp.sqrt(jnp.sum(x * x))


norm_jit = jax.jit(jax.vmap(norm))


def batch_norms(xs):
    return norm_jit(xs)


def golden_run():
    xs = jnp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    return [batch_norms(xs + i) for i in range(4)]
