"""A setter method changes what the static-self method reads."""
from functools import partial

import jax

GOLDEN = {
    "findings": ["PML506:19"],
}


class Scaler:
    def __init__(self, k):
        self.k = k

    def set_k(self, k):
        self.k = k

    @partial(jax.jit, static_argnums=0)
    def __call__(self, x):
        return x * self.k
