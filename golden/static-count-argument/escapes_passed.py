"""Must not change (safe fixes only): every call in the file passes `n` a Python int, but `step` is also
passed to `run`, which may call it with anything (an array: a static `n` would then be rejected as
unhashable). Call-site evidence proves nothing about callers it cannot see: the fix is unsafe, and
the note names the escape."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML204:16"],
    "framework": "jax",
    "original_broken": {"jax": "TracerIntegerConversionError"},
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
