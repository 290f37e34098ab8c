"""A class that defines `__hash__`/`__eq__` over its fields: jax traces again when they change. Not reported."""
from functools import partial

import jax

GOLDEN = {
    "findings": [],
}


class Scaler:
    def __init__(self, k):
        self.k = k

    def __hash__(self):
        return hash(self.k)

    def __eq__(self, other):
        return isinstance(other, Scaler) and other.k == self.k

    def set_k(self, k):
        self.k = k

    @partial(jax.jit, static_argnums=0)
    def __call__(self, x):
        return x * self.k
