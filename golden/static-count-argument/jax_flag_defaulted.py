"""A flag every call in the file leaves at its default: a Python constant today, so the `if` works and is
never rewritten; declaring it static (safe: no call changes) keeps it working for a caller that passes it."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML204:16"],
    "framework": "jax",
    "backends": ["jax"],
}


@jax.jit
def normalise(v, center=False):
    if center:
        v = v - jnp.mean(v)
    return v / jnp.max(jnp.abs(v))


def golden_run():
    return [normalise(jnp.array([1., -3., 2.]))]
