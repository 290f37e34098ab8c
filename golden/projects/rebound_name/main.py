"""A rebound name is two things: `limit` is physics' `hard_limit` at module level until the def below
rebinds it; the jitted `step`, which runs later, calls the local `limit`. So only `soft_limit` is traced,
and `hard_limit`, called eagerly, keeps its `if`.
"""
import jax
import jax.numpy as jnp

from physics import hard_limit as limit
from physics import soft_limit

GOLDEN = {
    "findings": ["physics.py:PML201:6"],
    "unsafe_fixes": True,
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}

baseline = limit(jnp.array([5., -1.]), 1.)


def limit(x, bound):
    return jnp.minimum(x, bound)


@jax.jit
def step(x):
    return limit(soft_limit(x, 3.), 4.)


def golden_run():
    return [step(jnp.array([1., 2.])), step(jnp.array([5., 1.])), baseline]
