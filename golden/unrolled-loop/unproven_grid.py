"""Nothing in this file calls `integrate` directly, so nothing shows `ts` is an array: a list of
arrays would be unrolled alike, but `scan` would walk its leaves. Consecutive pairs `zip(ts, ts[1:])`
of a traced parameter are still reported (`len(ts) - 1` iterations) and rewritten as an unsafe fix
(applied here). `history` is appended to and stacked: with a data-length count, an empty `ts`
makes `jnp.stack` raise where `scan` returns an empty stack (unsafe too). `for w in weights`,
with nothing showing an array, is not reported (a list of layers has a small static length)."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML206:21"],
    "unsafe_fixes": True,
    "framework": "jax",
    "backends": ["jax"],
}


@jax.jit
def integrate(ts, y, weights):
    history = []
    for a, b in zip(ts, ts[1:]):
        y = y + (b - a) * jnp.sin(y)
        history.append(y)
    for w in weights:
        y = y * w
    return jnp.stack(history), y


SOLVERS = {"integrate": integrate}


def golden_run():
    solve = SOLVERS["integrate"]
    return [solve(jnp.linspace(0.0, 1.0, 40), jnp.ones(3), [2.0, 0.5]),
            solve(jnp.linspace(0.0, 3.0, 90) ** 2, jnp.arange(3.0), [])]
