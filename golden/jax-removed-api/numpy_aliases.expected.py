"""Removed `jax.numpy` aliases: each becomes the function it was an alias of."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {
    "findings": ["PML604:16", "PML604:17", "PML604:18", "PML604:19", "PML604:20", "PML604:21", "PML604:22"],
    "migration": {"framework": "jax", "backends": ["jax"], "original_error": "AttributeError"},
}


@jax.jit
def golden_run(x=jnp.array([[1.0, -2.5], [0.5, 3.0]])):
    positive = x > 0
    return (
        jnp.prod(x),
        jnp.cumprod(x, axis=1),
        jnp.all(positive),
        jnp.any(positive),
        jnp.vstack([x[0], x[1]]),
        jnp.round(x * 1.26, 1),
        jnp.trunc(x),
    )


def golden_expected():
    x = np.array([[1.0, -2.5], [0.5, 3.0]])
    return (np.prod(x), np.cumprod(x, axis=1), np.bool_(False), np.bool_(True), x, np.round(x * 1.26, 1), np.trunc(x))
