"""Reported, not rewritten: the index is a Python int the body needs (a list of layers), a `break`,
a list the body reads back, and a sequence that may be a list of arrays."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML206:17", "PML206:24", "PML206:34"],
    "framework": "jax",
    "backends": ["jax"],
}

SCALES = [1.0 + 0.01 * k for k in range(64)]


@jax.jit
def scaled(x):
    for k in range(64):
        x = x * SCALES[k]
    return x


@jax.jit
def until_small(x):
    for _ in range(100):
        x = x * 0.9
        if x.shape[0] > 100:
            break
    return x


@jax.jit
def smoothed(x):
    history = []
    for _ in range(60):
        history.append(x)
        x = 0.5 * (x + history[-1])
    return jnp.stack(history)


def golden_run():
    return [scaled(jnp.ones(4)), until_small(jnp.ones(4)), smoothed(jnp.ones(4))]
