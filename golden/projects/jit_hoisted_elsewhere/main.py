"""One run reaches the project's fixpoint: hoisting `jax.jit(physics.limiter)` out of the loop makes it a
module-level jit of a function of physics.py, which tells physics.py that `limiter` is traced. The same
run reads that: physics.py's `if` is reported, and a second run changes nothing. It is not rewritten:
`limiter` is defined in physics.py and jitted here, and its other callers (`golden_run`) run it eagerly.

`clipped` raises under jit before and after (the fix is by hand): only `scaled` and the eager calls run.
"""
import jax
import jax.numpy as jnp

import physics

GOLDEN = {
    "findings": ["main.py:PML302:25", "main.py:PML302:33", "physics.py:PML201:10"],
    "framework": "jax",
    "backends": ["jax"],
    "unsafe_fixes": True,
    "messages": {"physics.py:PML201:10": "not rewritten: `limiter` is jitted in main.py"},
}


def scaled(xs):
    out = []
    for x in xs:
        step = jax.jit(physics.scale)
        out.append(step(x, 2.0))
    return out


def clipped(xs):
    out = []
    for x in xs:
        step = jax.jit(physics.limiter)
        out.append(step(x, 1.0))
    return out


def golden_run():
    xs = [jnp.array([0.5, 2.0]), jnp.array([0.1, 0.2])]
    return scaled(xs) + [physics.limiter(x, 1.0) for x in xs]
