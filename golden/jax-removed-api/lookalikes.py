"""Current jax names, numpy's own names, and functions of your own: untouched."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {"findings": []}


def product(values):
    out = 1
    for v in values:
        out *= v
    return out


def tie_in(x, y):
    return x, y


x = jnp.arange(3.0)
current = (jnp.prod(x), jnp.cumprod(x), jnp.all(x > 0), jnp.any(x > 0), jnp.vstack([x, x]), jnp.round(x))
constants = (-jnp.inf, np.inf, np.round(1.5))
mine = (product([1, 2]), tie_in(1, 2))
annotated: jax.Array = x
checkpointed = jax.checkpoint(jnp.sin)
