"""Lines that end in `;`: `ast` ends a block there after the `;`, libcst before it. The fixes are placed by where
each statement starts, so the loop and the `if` are both rewritten."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML202:16", "PML201:23"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerIntegerConversionError"},
}


@jax.jit
def power_of_two(x, n):
    for _ in range(n):
        x = x * 2;
    return x


@jax.jit
def doubled_if_positive(x):
    if x.sum() > 0:
        x = x * 2;
    return x


def golden_run():
    x = jnp.array([1., 2.])
    return [power_of_two(x, jnp.int32(2)), power_of_two(x, jnp.int32(0)), doubled_if_positive(x),
            doubled_if_positive(-x)]
