"""Inner jits in a jitted jax body: a jitted lambda called in place, and a jit-decorated helper."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {"findings": ["PML303:11", "PML303:14"], "framework": "jax", "backends": ["jax"], "compiles": [1, 1]}


@jax.jit
def outer(x):
    y = jax.jit(lambda v: v * 2)(x)

    # helper, traced inline anyway
    @jax.jit
    def helper(z):
        return jnp.sin(z)

    return helper(y)


def golden_run():
    return [outer(jnp.arange(3.0)), outer(jnp.arange(3.0) + 1)]
