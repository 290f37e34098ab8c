"""Must not change: a helper returns an array and a Python flag; unpacked, the flag stays a Python value.

Every `return` of `_wrapped` gives a pair whose second element is `True` or `False`, so `wrapped` is a
Python bool under `jax.jit` whatever `key` is, and `if wrapped` is decided while tracing. The pair's
first element is a tracer: `typed` is traced, as the whole pair used to make both.
"""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


def _wrapped(key):
    if isinstance(key, int):
        return jnp.asarray([key, key]), True
    return key, False


@jax.jit
def step(key):
    typed, wrapped = _wrapped(key)
    if wrapped:
        return typed + 1
    return typed * 2


def golden_run():
    return [step(jnp.ones(2)), step(jnp.arange(2.))]
