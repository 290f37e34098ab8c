"""The seed example: an attribute changed after the first call, the trace keeps the old value (prints 10, 10)."""
from functools import partial

import jax

GOLDEN = {
    "findings": ["PML506:16"],
}


class Wow:
    def __init__(self, x):
        self.x = x

    @partial(jax.jit, static_argnums=(0,))
    def f(self):
        return self.x


W = Wow(10)
print(W.f())
W.x = 9
print(W.f())
