"""A size every call passes as a Python literal, used only as a shape, in a function with no `if` or loop.

`jnp.zeros(n)` needs a concrete `n`: under `jax.jit` it is a tracer and the call raises. Declaring `n`
static traces once per size. (The pre-filter once asked for control flow before it let this rule look.)
"""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML204:18"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TypeError"},
}


@jax.jit
def padded(v, n):
    return jnp.concatenate([v, jnp.zeros(n)])


def golden_run():
    v = jnp.arange(3.)
    return [padded(v, 2), padded(v, 4)]
