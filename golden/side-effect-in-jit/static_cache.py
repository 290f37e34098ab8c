"""Must not be reported: a jitted method with a static `self` caches data computed from static values
only (NumPy on its own attributes, a flag) on first use, in itself or in a method it calls. Every
trace stores the same values, so nothing traced escapes and every call computes the same. (PML506
reports the method: a static `self` whose attributes change is a hazard of its own.)"""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {
    "findings": ["PML506:28"],
    "framework": "jax",
    "backends": ["jax"],
}


class Boundary:
    def __init__(self, cells):
        self.cells = cells
        self.ready = False

    def prepare(self):
        self.neighbours = np.asarray(self.cells) + 1
        self.count = len(self.cells)

    @partial(jax.jit, static_argnums=0)
    def apply(self, f):
        if not self.ready:
            self.prepare()
            self.ready = True
        self.index = np.arange(self.count)
        return f.at[self.neighbours].set(f[self.index] * 0.5)


def golden_run():
    b = Boundary([0, 1])
    f = jnp.arange(5.)
    return [b.apply(f * k) for k in range(3)]
