"""Must not change (for PML201): `m = int(k)` of a parameter the calls pass arrays to fails under jit at the
conversion, before any `if` runs; wherever the program gets past it, `m` is a Python int. The `if` on `m`
is not the failure, and a `where` there would fix nothing."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
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
