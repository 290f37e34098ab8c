"""Conditions on predicates defined in another module: Python values while tracing, never rewritten.

`scalar_like(x)` and `has_rows(x)` return `isinstance`/`np.isscalar`/`.ndim` answers, so `step`'s first
two `if`s are decided while tracing (both used to be reported as raising under `jax.jit`, `has_rows` with
a fix). `doubled(x)` returns an array: the last `if` is on a tracer, and raises.
"""
import jax
import jax.numpy as jnp

from checks import doubled, has_rows, scalar_like

GOLDEN = {
    "findings": ["main.py:PML201:27"],
    "alone_also": ["main.py:PML201:23", "main.py:PML201:25"],  # what main.py alone cannot tell are predicates
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def step(x):
    if scalar_like(x):
        return x + 1
    if has_rows(x):
        x = x * 3
    return jax.lax.cond(doubled(x).sum() > 0, lambda: x * 2, lambda: x)


def golden_run():
    return [step(jnp.ones(3)), step(-jnp.ones(3))]
