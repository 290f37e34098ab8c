"""Conditions on predicates called through their modules: Python values while tracing, never rewritten.

`shapes.is_scalar(x)` answers with `isinstance`/`np.isscalar`, and `checks.batched(x)` with that
answer and `.ndim`, so `step`'s first two `if`s are decided while tracing (both used to be reported as
raising under `jax.jit`, with a fix: calls through a module, and a predicate built on another's, were
not followed). `checks.scaled(x)` returns an array: the last `if` is on a tracer, and raises.
"""
import jax

import checks
import shapes

GOLDEN = {
    "findings": ["main.py:PML201:28"],
    "alone_also": ["main.py:PML201:24", "main.py:PML201:26"],  # what main.py alone cannot tell are predicates
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def step(x):
    if shapes.is_scalar(x):
        return x + 1
    if checks.batched(x):
        x = x * 3
    if checks.scaled(x).sum() > 0:
        return x * 2
    return x


def golden_run():
    import jax.numpy as jnp

    return [step(jnp.ones(3)), step(-jnp.ones(3)), step(jnp.ones((2, 2)))]
