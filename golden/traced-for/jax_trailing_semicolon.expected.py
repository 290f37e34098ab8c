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
    def loop_body(_, x):
        x = x * 2;
        return x
    x = jax.lax.fori_loop(0, n, loop_body, x)
    return x


@jax.jit
def doubled_if_positive(x):
    x = jnp.where(x.sum() > 0, x * 2, x)
    return x


def golden_run():
    x = jnp.array([1., 2.])
    return [power_of_two(x, jnp.int32(2)), power_of_two(x, jnp.int32(0)), doubled_if_positive(x),
            doubled_if_positive(-x)]
