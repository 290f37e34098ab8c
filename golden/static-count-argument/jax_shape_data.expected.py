"""Only the sizes of a jax shape call need Python values: its data may be traced.

`jnp.full((n,), fill)` needs a concrete `n`, not a concrete `fill`; `jnp.linspace(start, stop, 5)`,
`jnp.broadcast_to(v, (3,))`, `jnp.eye(3, k=k)` and `jnp.repeat(v, r, total_repeat_length=4)` trace
their data under `jax.jit` and run. Only `n` is reported: declaring `fill`, `stop` or `k` static would
only trace once per value (and refuse an array).
"""
import jax
import jax.numpy as jnp
import functools

GOLDEN = {
    "findings": ["PML204:20"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TypeError"},
}


@functools.partial(jax.jit, static_argnames=('n',))
def filled(v, n, fill=0.0):
    return jnp.concatenate([v, jnp.full((n,), fill)])


@jax.jit
def data_only(v, stop=1.0, k=1, r=2):
    grid = jnp.linspace(0.0, stop, 5)
    band = jnp.eye(3, k=k)
    wide = jnp.broadcast_to(stop, (3,))
    doubled = jnp.repeat(v[:2], r, total_repeat_length=4)
    return grid.sum() + band.sum() + wide.sum() + doubled.sum()


def golden_run():
    v = jnp.arange(3.)
    return [filled(v, 2, 1.5), filled(v, 4), data_only(v, 2.0, 0, 2), data_only(v)]
