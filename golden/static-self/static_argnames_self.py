"""`static_argnames='self'` and an augmented assignment in a training loop."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML506:17"],
}


class Schedule:
    def __init__(self):
        self.step = 0

    @partial(jax.jit, static_argnames='self')
    def rate(self, base):
        return base * jnp.exp(-0.01 * self.step)

    def advance(self):
        self.step += 1
