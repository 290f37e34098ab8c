"""A piecewise formula over one scalar parameter: both pieces are elementwise in `t`, and every call
passes a float32 scalar (`jnp.float32(...)`), so both are float32 and shaped like `t`: a safe `where`.
`t ** 2` (an integer exponent) and the Python numbers keep `t`'s dtype in every backend."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:17"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def ease(t):
    if t < 0.5:
        y = 2 * t * t
    else:
        y = 1 - 2 * (1 - t) ** 2
    return y


def golden_run():
    results = [ease(jnp.float32(0.25)), ease(jnp.float32(0.75))]
    return results + [str(r.dtype) for r in results] + [r.shape for r in results]
