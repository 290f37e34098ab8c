"""All calls of the nested def are renamed; decorators with options and comments move along."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {"findings": ["PML102:14"]}


def integrate(x, dt, steps):
    total = 0.0
    # explicit Euler, compiled once per shape
    @partial(jax.jit, static_argnums=1)
    def euler(y, n):
        for _ in range(n):
            y = y - 0.1 * y
        return y

    for _ in range(steps):
        x = euler(x, 2)
        total = total + euler(x, 1).sum()
    return x, total
