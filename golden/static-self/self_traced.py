"""`self` is not static (a pytree-like argument), or the mutated attribute is never read by the jitted method."""
from functools import partial

import jax

GOLDEN = {
    "findings": [],
}


class Counter:
    def __init__(self):
        self.calls = 0
        self.k = 2

    def bump(self):
        self.calls += 1  # not read by the jitted method

    @partial(jax.jit, static_argnums=0)
    def scale(self, x):
        return x * self.k


@jax.jit
def free_function(x):
    return x + 1
