"""A function other code may call (stored in a registry): its call sites prove nothing, but its
jaxtyping annotation declares float32 data to every caller. `4 * t * t * t` and `0.5 * (2 * t - 2) ** 3 + 1`
are then both float32 and shaped like `t`: a safe `where` (unproven_dtypes.py: the same without it)."""
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float32

GOLDEN = {
    "findings": ["PML201:18"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def ease(t: Float32[Array, ""]):
    y = jnp.where(t < 0.5, 4 * t * t * t, 0.5 * (2 * t - 2) ** 3 + 1)
    return y


EASINGS = {"cubic": ease}


def golden_run():
    results = [ease(jnp.float32(0.25)), ease(jnp.float32(0.75)), EASINGS["cubic"](jnp.float32(0.5))]
    return results + [str(r.dtype) for r in results] + [r.shape for r in results]
