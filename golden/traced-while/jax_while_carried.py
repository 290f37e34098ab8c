"""Two carried variables and an `and` of traced conditions: `jnp.logical_and` in the loop condition."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML203:16"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def halve_counted(x, limit):
    count = jnp.zeros((), jnp.int32)
    while jnp.any(x > 1) and count < limit:
        x = x / 2
        count = count + 1
    return x, count


def golden_run():
    return [halve_counted(jnp.array([4., 8.]), 10), halve_counted(jnp.array([64., 2.]), 3)]
