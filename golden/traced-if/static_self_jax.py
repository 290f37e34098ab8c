"""Must not change: configuration read through a static `self`, static arguments and shapes under `jax.jit`."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


class Integrator:
    def __init__(self, implicit: bool, dt: float):
        self.implicit = implicit
        self.dt = dt

    @partial(jax.jit, static_argnums=0)
    def step(self, x):
        if self.implicit and self.dt > 0.1:
            return x / (1 + self.dt)
        return x * (1 - self.dt)


@partial(jax.jit, static_argnames=("order",))
def derivative(x, order):
    if order == 0 or x.shape[0] < 2:
        return x
    for _ in range(order):
        x = jnp.diff(x)
    return x if x.ndim == 1 else x[0]


def golden_run():
    x = jnp.array([1., 2., 4., 8.])
    return [Integrator(True, 0.5).step(x), Integrator(False, 0.5).step(x), derivative(x, 2), derivative(x, 0)]
