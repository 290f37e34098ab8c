"""jax.jit applied to a function that is already jitted."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {"findings": ["PML303:14"], "framework": "jax", "backends": ["jax"], "compiles": [1, 1]}


@jax.jit
def step(x):
    return x - 0.1 * jnp.tanh(x)


fast_step = step


def golden_run():
    x = jnp.asarray(np.linspace(-2, 2, 5, dtype=np.float32))
    for _ in range(3):
        x = fast_step(x)
    return x
