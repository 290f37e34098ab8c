"""Must not change: jits that carry arguments are more than a compilation. An inner jit given
`backend=` chooses where it runs (a conflicting outer backend raises), one given `donate_argnums`
donates its buffers, one with `static_argnames` keeps arguments Python values. Each is reported with
what its arguments do."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML303:29", "PML303:30", "PML303:35"],
    "framework": "jax",
    "backends": ["jax"],
}


def scale(x):
    return x * 2


@partial(jax.jit, static_argnames="n")
def repeat(x, n):
    for _ in range(n):
        x = x + 1
    return x


on_cpu = jax.jit(scale, backend="cpu")
fast_cpu = jax.jit(on_cpu)
fast_repeat = jax.jit(repeat, static_argnames="n")


@jax.jit
def outer(x):
    return jax.jit(scale, donate_argnums=0)(x) + fast_cpu(x)


def golden_run():
    x = jnp.arange(3.)
    return [outer(x), fast_repeat(x, 2)]
