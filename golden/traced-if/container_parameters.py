"""Must not change: the truth of a Python list, tuple or dict is its length, a Python value while tracing.

Parameters declared a list, tuple, dict, `Sequence` or `Mapping` (or an optional one) hold Python
containers of arrays, pytrees to `jax.jit`: `if trees:`, `if not parts:`, `if weights:` and `if bounds:`
are decided while tracing, whatever the arrays in them. Each used to be read as a tracer and rewritten
into `lax.cond(trees, ...)`, which raises on a list.
"""
from typing import Mapping, Optional, Sequence

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


def norm(parts: Sequence[jax.Array]):
    if not parts:
        return jnp.zeros(())
    return sum(jnp.sum(p ** 2) for p in parts)


@jax.jit
def total(trees: list, weights: Mapping[str, jax.Array], bounds: tuple = (), extra: Optional[list] = None):
    out = norm(trees)
    if trees:
        out = out / len(trees)
    if weights:
        out = out * weights["scale"]
    if bounds:
        out = jnp.clip(out, *bounds)
    if extra:
        out = out + norm(extra)
    return out


def golden_run():
    return [total([jnp.ones(2), jnp.arange(3.)], {"scale": jnp.array(2.)}),
            total([], {}, (0., 1.)),
            total([jnp.ones(1)], {}, extra=[jnp.ones(2)])]
