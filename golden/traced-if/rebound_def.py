"""Must not change: `step` runs eagerly, is then rebound, and only the second function is jitted.

Which function a name denotes is flow-sensitive: `jax.jit(step)` reads the second `def step`, so the first
one, with its Python `if`, is plain eager code."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


def step(x, n):
    if n > 2:
        return x * 2
    return x


EAGER = step(jnp.ones(2), 3)


def step(x, n):
    return x + n


fast = jax.jit(step)


def golden_run():
    return [EAGER, fast(jnp.ones(2), 3)]
