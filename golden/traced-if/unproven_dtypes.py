"""Branches the array algebra does not prove equal: each fix stays unsafe, so nothing changes.

- `halve`: every call passes integers, and an integer array times a Python float is a float (float32
  in jax and torch, float64 in numpy; tensorflow raises): the branches differ in dtype.
- `column_sums`: `jnp.sum(x, axis=0)` drops an axis: its shape is not `x`'s.
- `as_rows`: reshapes to two different literal shapes.
- `shared_ease`: the calls here pass float32 scalars, but the function is stored in a registry,
  so callers this module does not show may pass anything: call sites are no proof."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:19", "PML201:28", "PML201:37", "PML201:46"],
}


@jax.jit
def halve(x):
    if jnp.any(x > 2):
        y = x * 0.5
    else:
        y = x
    return y


@jax.jit
def column_sums(x):
    if jnp.all(x > 0):
        y = jnp.sum(x, axis=0)
    else:
        y = x[0]
    return y


@jax.jit
def as_rows(x):
    if jnp.all(x > 0):
        y = x.reshape((2, 3))
    else:
        y = x.reshape((3, 2))
    return y


@jax.jit
def shared_ease(t):
    if t < 0.5:
        y = 4 * t * t * t
    else:
        y = 0.5 * (2 * t - 2) ** 3 + 1
    return y


EASINGS = {"quadratic": shared_ease}



def golden_run():
    i = jnp.arange(6)
    m = jnp.ones((2, 3))
    return [halve(i), halve(i - 4), column_sums(-m), as_rows(i), shared_ease(jnp.float32(0.25))]
