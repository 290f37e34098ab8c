"""A keyword-only flag of a `jax.jit` function whose branches give different shapes: declared static, the `if` stays.

Callers pass it as a Python bool. Under `jax.jit` an explicitly passed bool is traced, so `if flat:` raises;
rewriting the `if` into `jnp.where` would broadcast `(n,)` against `(n, 1)` into `(n, n)` and `lax.cond`
would raise (different shapes). Only `static_argnames` keeps what the author meant.
"""
import jax
import jax.numpy as jnp
import functools

GOLDEN = {
    "findings": ["PML204:19"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@functools.partial(jax.jit, static_argnames=('flat',))
def features(v, *, flat: bool = False):
    if flat:
        out = v.reshape(-1)
    else:
        out = v[:, None]
    return out * 2


def golden_run():
    v = jnp.arange(3.)
    return [features(v), features(v, flat=True), features(v, flat=False)]
