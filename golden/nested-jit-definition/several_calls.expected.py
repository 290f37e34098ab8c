"""All calls of the nested def are renamed; decorators with options and comments move along."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {"findings": ["PML102:14"]}


# explicit Euler, compiled once per shape
@partial(jax.jit, static_argnums=1)
def _integrate_euler(y, n):
    for _ in range(n):
        y = y - 0.1 * y
    return y


def integrate(x, dt, steps):
    total = 0.0
    for _ in range(steps):
        x = _integrate_euler(x, 2)
        total = total + _integrate_euler(x, 1).sum()
    return x, total
