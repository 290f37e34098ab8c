"""Must not change: a list of tracers is no tracer; its length and its truth are Python values.

`leaves` (a pytree's leaves), `scaled` (filled by `append` in a loop) and `parts` (a comprehension)
hold traced arrays, but each is a Python list: `if not leaves`, `if scaled` and `for p in parts` are
decided while tracing, also inside a helper the list is handed to. Each used to be reported as a
condition on a traced value that raises under `jax.jit`.
"""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


def _ravel(leaves):
    if not leaves:
        return jnp.zeros(0)
    return jnp.concatenate([jnp.ravel(v) for v in leaves])


@jax.jit
def ravel_tree(tree):
    leaves, _ = jax.tree_util.tree_flatten(tree)
    return _ravel(leaves)


@partial(jax.jit, static_argnames="n")
def scaled_sum(x, n):
    scaled = []
    for f in range(n):
        scaled.append(x * f)
    if scaled:
        return jnp.stack(scaled).sum(0)
    return x


@jax.jit
def sum_of_parts(x):
    parts = [x[i] * 2 for i in range(3)]
    total = jnp.zeros(())
    for p in parts:
        total = total + p
    return total if parts else x


def golden_run():
    return [ravel_tree({"a": jnp.ones(2), "b": jnp.arange(3.)}), ravel_tree({}),
            scaled_sum(jnp.ones(2), 4), scaled_sum(jnp.ones(2), 0), sum_of_parts(jnp.arange(3.))]
