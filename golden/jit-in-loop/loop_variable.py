"""The jitted lambda captures the loop variable: hoisting would change what it computes."""
import jax
import jax.numpy as jnp

GOLDEN = {"findings": ["PML302:11"]}


def powers(y):
    out = []
    for k in range(3):
        out.append(jax.jit(lambda x: x ** k)(y))
    return out
