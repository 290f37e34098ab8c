"""A jitted jax function calls a helper through a package's re-export (`from sim import clip_step`)."""
import jax
import jax.numpy as jnp

from sim import clip_step

GOLDEN = {
    "findings": ["sim/physics.py:PML201:6"],
    "unsafe_fixes": True,
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def advance(x):
    return clip_step(x * 2., 3.)


def golden_run():
    return [advance(jnp.array([1., 2.])), advance(jnp.array([0.5, 1.]))]
