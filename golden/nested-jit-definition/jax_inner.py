"""Raw jax: a jitted helper defined per call compiles on every call."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML102:15"],
    "framework": "jax",
    "backends": ["jax"],
    "compiles": [3, 1],
}


def smooth(x):
    @jax.jit
    def kernel(y):
        # a comment inside stays inside
        return 0.25 * jnp.roll(y, 1) + 0.5 * y + 0.25 * jnp.roll(y, -1)

    return kernel(kernel(x))


def golden_run():
    return [smooth(jnp.arange(6.) * i) for i in range(1, 4)]
