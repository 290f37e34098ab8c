"""`jnp.NINF`, `jnp.PZERO`, `jnp.NZERO` were the floats -inf, 0.0 and -0.0; parenthesised where a
unary minus would bind differently (`jnp.NINF ** 2`, `jnp.NINF.real`)."""
import jax.numpy as jnp
import numpy as np

GOLDEN = {
    "findings": ["PML604:15", "PML604:16", "PML604:17", "PML604:18", "PML604:19"],
    "migration": {"framework": "jax", "backends": ["jax"], "original_error": "AttributeError"},
}


def golden_run():
    x = jnp.array([1.0, -2.0, 3.0])
    return (
        jnp.maximum(x, jnp.NINF),
        jnp.NINF ** 2,
        jnp.divide(1.0, jnp.NZERO),
        jnp.copysign(1.0, jnp.PZERO),
        jnp.NINF.real,
    )


def golden_expected():
    return np.array([1.0, -2.0, 3.0]), np.inf, -np.inf, 1.0, -np.inf
