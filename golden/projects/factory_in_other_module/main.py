"""Calls, in loops, of factories defined in another module: a new jit function every iteration.

`make_step(dt)` returns a function it jit-compiles (PML401: re-traced every iteration); `jax.jit(make_decay(r))`
wraps a new def every iteration (PML302, certain because solvers.py shows `make_decay` returns a def it creates).
Both are reported, not fixed: where the loop's value belongs is the author's choice.
"""
import jax
import jax.numpy as jnp

from solvers import make_decay, make_step

GOLDEN = {
    "findings": ["main.py:PML401:24", "main.py:PML302:26"],
    "messages": {"main.py:PML401:24": "solvers.py:5:1: `make_step` is defined here", "main.py:PML302:26": "a new function each time"},
    "framework": "jax",
    "backends": ["jax"],
}


def golden_run():
    x = jnp.array([1., 2.])
    out = []
    for i in range(4):
        step = make_step(0.1 * i)
        x = step(x)
        decay = jax.jit(make_decay(0.05 * i))
        x = decay(x)
        out.append(x)
    return out
