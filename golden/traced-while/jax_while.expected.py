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
    def loop_condition(x):
        return jnp.any(x > 1)
    def loop_body(x):
        x = x / 2
        return x
    x = jax.lax.while_loop(loop_condition, loop_body, x)
    return x


def golden_run():
    return [halve(jnp.array([4., 8.])), halve(jnp.array([64., 2.]))]
