"""Functions handed to `lax.scan` / `lax.fori_loop` run traced: an `if` on their carry fails the same way."""
import jax
import jax.numpy as jnp
from jax import lax

GOLDEN = {
    # unsafe (line 15): the branches combine the scan's carry and element, whose shapes cannot be proven equal
    "unsafe_fixes": True,
    "findings": ["PML201:17", "PML201:32"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


def accumulate(carry, x):
    if jnp.all(carry > 0):
        carry = carry + x
    else:
        carry = carry - x
    return carry, carry


@jax.jit
def run(xs):
    final, history = lax.scan(accumulate, jnp.zeros(()), xs)
    return final, history


@jax.jit
def double_positive(x):
    return lax.fori_loop(0, 3, lambda i, v: v * 2 if jnp.all(v > 0) else v, x)


def golden_run():
    return [run(jnp.array([1., -2., 3.])), run(jnp.array([-1., 2.])), double_positive(jnp.array([1., 2.])),
            double_positive(jnp.array([-1., 2.]))]
