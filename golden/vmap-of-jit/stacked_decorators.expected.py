"""Stacked decorators with comments; options on both transforms stay with their transform."""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {"findings": ["PML301:12"], "framework": "jax", "backends": ["jax"], "compiles": [1, 1]}


# per-example update
@partial(jax.jit, static_argnames="substeps")  # compiled
@partial(jax.vmap, in_axes=(0, None))  # batch over particles
def advance(position, substeps=4):
    for _ in range(substeps):
        position = position + 0.1 * jnp.sin(position)
    return position


def golden_run():
    p = jnp.asarray(np.linspace(0, 3, 12, dtype=np.float32).reshape(4, 3))
    return [advance(p, 4), advance(p * 2, 4)]
