"""Casts and reshapes with literal arguments: `astype(jnp.float32)` spells the dtype whatever `x` holds,
and two reshapes of `x` to one literal shape agree. Both selections are safe, even for integer data."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:16", "PML201:25"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def as_float(x):
    y = jnp.where(jnp.any(x > 2), x.astype(jnp.float32) * 0.5, jnp.abs(x).astype(jnp.float32))
    return y


@jax.jit
def as_matrix(x):
    y = jnp.where(jnp.all(x > 0), x.reshape((2, 3)) * 2, jnp.reshape(-x, (2, 3)))
    return y


def golden_run():
    i = jnp.arange(6)
    results = [as_float(i), as_float(i - 4), as_matrix(i + 1), as_matrix(i)]
    return results + [str(r.dtype) for r in results] + [r.shape for r in results]
