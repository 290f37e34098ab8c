"""`int(k)` of a parameter the calls pass arrays to raises under jit before any `if` runs: a `where` on
the result would fix nothing. Reported, not rewritten; the note says to compute it with array operations."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:16"],
    "framework": "jax",
    "original_broken": {"jax": "ConcretizationTypeError"},
}


@jax.jit
def grow(x, k):
    m = int(k)
    if m > 3:
        return x * 2
    return x + 1


def golden_run():
    x = jnp.arange(3.)
    return [grow(x, jnp.array(4)), grow(x, jnp.array(1))]
