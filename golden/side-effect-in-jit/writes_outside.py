"""Values written into a global dict or an attribute of a static `self`, or rebound with `global`: all
escape the traced call. A write into an argument's dict is lost instead: `jax.jit` passes a rebuilt
copy, so the caller's dict is never updated (eagerly it is)."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML501:20", "PML501:21", "PML501:27", "PML501:38"],
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
