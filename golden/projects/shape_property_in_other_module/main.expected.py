"""Conditions on a property another module defines: `state.dim` returns `self.pos.shape[-1]`, a Python int
while tracing, so the first `if` is decided then and never rewritten (it used to be "cannot tell");
the second `if` reads an array's values: it is on a tracer, and raises.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

from state import State

if TYPE_CHECKING:
    from state import State as StateType

GOLDEN = {
    "findings": ["main.py:PML201:30"],
    "alone_also": ["main.py:PML201:28"],  # what main.py alone cannot tell is a shape
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def step(state: StateType, x: jax.Array) -> jax.Array:
    if state.dim == 2:
        return x * 3
    return jnp.where(x.sum() > 0, x * 2, x)


def golden_run():
    x = jnp.array([1., -2.])
    return [step(State(jnp.ones((2, 2))), x), step(State(jnp.ones((2, 3))), x), step(State(jnp.ones((2, 3))), -x)]
