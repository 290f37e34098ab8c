"""A test that converts a parameter the calls pass arrays to (`if float(level) > 0.5:`) fails at the
conversion under jit: reported, never rewritten into a `where` (which would keep the conversion)."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:14"],
    "framework": "jax",
}


@jax.jit
def damp(x, level):
    if float(level) > 0.5:
        return x * 0.5
    return x


def golden_run():
    x = jnp.arange(3.)
    return [damp(x, jnp.array(0.9)), damp(x, jnp.array(0.1))]
