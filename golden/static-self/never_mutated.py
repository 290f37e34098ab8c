"""Configuration set once in `__init__` and only read: the static-self pattern works. Not reported."""
from functools import partial

import jax

GOLDEN = {
    "findings": [],
}


class Model:
    def __init__(self, width, depth):
        self.width = width
        self.depth = depth

    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        for _ in range(self.depth):
            x = x * self.width
        return x


model = Model(2, 3)
print(model.apply(1.0))
