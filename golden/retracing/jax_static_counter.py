"""Raw jax: a static argument fed a loop counter, and slices that grow — jax compiles every call."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML401:27", "PML401:27"],
    "framework": "jax",
    "backends": ["jax"],
}


@partial(jax.jit, static_argnums=1)
def power_sum(x, n):
    return (x ** n).sum()


@jax.jit
def total(x):
    return (x ** 2).sum()


def run(x):
    out = []
    for n in range(1, 4):
        out.append(power_sum(x, n) + total(x[:n]))
    return out


def golden_run():
    return run(jnp.arange(4.0))
