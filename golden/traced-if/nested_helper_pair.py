"""Must not change: a def nested in the jitted function returns an array and a string; the string stays a Python value.

`strip` is defined and called inside `step`: read with `step`'s locals at each call, its second result is
a string of index letters whatever `x` is, so `if rest == "b"` and `if more` are decided while tracing.
The results used to be the join of the arguments: both `if`s were reported as raising under `jax.jit`.
"""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


@jax.jit
def step(x):
    scale = 2.0

    def strip(a, names):
        if names:
            a = a * scale
            names = names[1:]
        return a, names

    y, rest = strip(x, "ab")
    if rest == "b":
        y = y + 1
    z, more = strip(y, rest)
    if more:
        z = z * 3
    return z


def golden_run():
    return [step(jnp.ones(2)), step(jnp.arange(3.))]
