"""A count that must stay static: `n` sets an output shape. The rewrite merges the branch with
`where` and drops `static_argnames`, so under jit `n` is traced and `jnp.tile` cannot use it."""
import functools

import jax
import jax.numpy as jnp

SYNTHESIS = {"verdicts": {"tile_positive": "falsified"}, "reasons": {"tile_positive": "the rewrite fails"},
             "inputs": {"tile_positive": "n="}}


@functools.partial(jax.jit, static_argnames="n")
def tile_positive(x, n):
    if n > 0:
        y = jnp.tile(x, n)
    else:
        y = x
    return y


def main():
    return tile_positive(jnp.array([1.0, 2.0]), 3)
