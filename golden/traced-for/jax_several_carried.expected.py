"""Several loop-carried variables, a start offset and the loop index used in the body."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML202:17"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerIntegerConversionError"},
}


@jax.jit
def accumulate(x, y, n):
    total = jnp.zeros_like(x)
    # a damped accumulation whose length is data
    def loop_body(i, carry):
        total, x, y = carry
        total = total + x * i
        x = x * 0.5
        y = y + x
        return total, x, y
    total, x, y = jax.lax.fori_loop(1, n, loop_body, (total, x, y))
    return total, x, y


def golden_run():
    x, y = jnp.array([1., 2.]), jnp.array([0., 1.])
    return [accumulate(x, y, jnp.int32(4)), accumulate(x, y, jnp.int32(1))]
