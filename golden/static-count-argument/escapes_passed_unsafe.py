"""With unsafe fixes: `n` is declared static although `step` escapes to `run` (the note names it). Here
every caller passes a Python int, so the rewrite runs under jit where the original raised."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML204:17"],
    "unsafe_fixes": True,
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerIntegerConversionError"},
    "messages": {"PML204:17": "`step` is passed to `run`"},
}


@jax.jit
def step(x, n):
    for _ in range(n):
        x = x * 2
    return x


def run(fn, x):
    return fn(x, 2)


def golden_run():
    x = jnp.arange(3.)
    return [step(x, 3), run(step, x)]
