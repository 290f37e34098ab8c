"""`for _ in range(n)` with a traced `n` under `jax.jit` -> `lax.fori_loop`."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML202:15"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerIntegerConversionError"},
}


@jax.jit
def power_of_two(x, n):
    def loop_body(_, x):
        x = x * 2
        return x
    x = jax.lax.fori_loop(0, n, loop_body, x)
    return x


def golden_run():
    x = jnp.array([1., 2.])
    # the counts are arrays (data): `static_argnames` cannot take them, `fori_loop` can
    return [power_of_two(x, jnp.int32(2)), power_of_two(x, jnp.int32(3)), power_of_two(x, jnp.int32(0))]
