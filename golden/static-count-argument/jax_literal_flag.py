"""An unannotated flag that every call passes as a Python literal: configuration, declared static.

The branches differ in shape (a sum and an array): `jnp.where` would broadcast the sum, `lax.cond` would
raise. The calls are the evidence: `pick(v, True)` / `pick(v, False)`.
"""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML204:18"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def pick(v, total):
    if total:
        return jnp.sum(v)
    return v * 2


def golden_run():
    v = jnp.arange(3.)
    return [pick(v, True), pick(v, False)]
