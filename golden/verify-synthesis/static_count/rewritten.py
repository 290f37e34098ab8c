"""A count that must stay static: `n` sets an output shape. The rewrite merges the branch with
`where` and drops `static_argnames`, so under jit `n` is traced and `jnp.tile` cannot use it."""
import functools

import jax
import jax.numpy as jnp

SYNTHESIS = {"verdicts": {"tile_positive": "falsified"}, "reasons": {"tile_positive": "the rewrite fails"},
             "inputs": {"tile_positive": "n="}}


@jax.jit
def tile_positive(x, n):
    y = jnp.where(n > 0, jnp.tile(x, n), x)
    return y


def main():
    return tile_positive(jnp.array([1.0, 2.0]), 3)
