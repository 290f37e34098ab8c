"""`lax.tie_in(x, y)` returned `y`; `jax.ad_checkpoint.checkpoint`/`remat` were `jax.checkpoint`;
`jax.abstract_arrays.ShapedArray` was `jax.core.ShapedArray`."""
import jax
import jax.ad_checkpoint
import jax.numpy as jnp
import numpy as np
from jax import lax

GOLDEN = {
    "findings": ["PML604:16", "PML604:19", "PML604:25"],
    "migration": {"framework": "jax", "backends": ["jax"], "original_error": "AttributeError"},
}


def layer(x):
    return jnp.sin(x) * 2.0


remat_layer = jax.checkpoint(layer)


def golden_run():
    x = jnp.array([0.0, 1.0, 2.0])
    value, grad = jax.value_and_grad(lambda v: remat_layer(v).sum())(x)
    aval = jax.core.ShapedArray((3,), jnp.float32)
    return value, grad, aval.shape


def golden_expected():
    x = np.array([0.0, 1.0, 2.0])
    return (2 * np.sin(x)).sum(), 2 * np.cos(x), (3,)
