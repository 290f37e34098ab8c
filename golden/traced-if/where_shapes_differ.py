"""A traced condition whose branches give different shapes: `jnp.where` would broadcast them silently.

`x[:, None]` is `(n, 1)` and `x` is `(n,)`: a selection gives `(n, n)`. Nothing proves the shapes equal,
so the fix is unsafe (applied only on request) and this case, run without unsafe fixes, must not change."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:15"],
}


@jax.jit
def column_if_positive(x):
    if jnp.all(x > 0):
        y = x[:, None]
    else:
        y = x
    return y
