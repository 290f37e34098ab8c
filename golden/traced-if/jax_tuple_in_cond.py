"""Raw jax: a branch that assigns a tuple and has real work becomes `lax.cond`, which returns the tuple
whole; each thunk writes it in parentheses (`lambda: (a, b)`: without them, the call would read its
elements as arguments of their own)."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:17"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def solved_pair(x):
    if jnp.max(x) > 1:
        a = jnp.linalg.solve(jnp.eye(2) * 2.0, x), x
    else:
        a = x, x * 2
    return a[0] + a[1]


def golden_run():
    x = jnp.array([1., 2.])
    return [solved_pair(x), solved_pair(x * 0.1)]
