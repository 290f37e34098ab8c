"""Values written into a global dict, an argument's container, an attribute of `self`, or rebound with
`global`: all escape the traced call."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML501:19", "PML501:20", "PML501:26", "PML501:37"],
}

CACHE = {}
COUNT = 0


@jax.jit
def normalise(x, stats: dict):
    mean = jnp.mean(x)
    CACHE['mean'] = mean
    stats['mean'] = mean
    return x - mean


@jax.jit
def bump(x):
    global COUNT
    COUNT = COUNT + 1
    return x + 1


class Model:
    def __init__(self):
        self.last = None

    @partial(jax.jit, static_argnums=0)
    def __call__(self, x):
        self.last = x
        return x * 2
