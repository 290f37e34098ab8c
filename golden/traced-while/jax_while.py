"""A data-dependent `while` under `jax.jit` -> `lax.while_loop`."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML203:15"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def halve(x):
    while jnp.any(x > 1):
        x = x / 2
    return x


def golden_run():
    return [halve(jnp.array([4., 8.])), halve(jnp.array([64., 2.]))]
