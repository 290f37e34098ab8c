"""Must not change: `int(...)` of a value gives a Python int while tracing (had it been a tracer, the
conversion would have raised). Here the capacity is a static field of the filter_jit argument; the `if`
on it is Python control flow, and a `where` would turn the count into an array."""
import dataclasses

import equinox as eqx
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


@dataclasses.dataclass(frozen=True)
class Config:
    capacity: int


@eqx.filter_jit
def pad(x, config):
    n = int(config.capacity)
    if n > x.shape[0]:
        return jnp.concatenate([x, jnp.zeros(n - x.shape[0])])
    return x


def golden_run():
    x = jnp.arange(3.)
    return [pad(x, Config(5)), pad(x, Config(2))]
