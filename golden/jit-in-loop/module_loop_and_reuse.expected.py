"""A module-level loop, an existing binding of the same wrapper, and a name that is already taken."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {"findings": ["PML302:20", "PML302:23"], "framework": "jax", "backends": ["jax"], "compiles": [4, 2]}


def smooth(x):
    return 0.5 * (x + jnp.roll(x, 1))


smooth_fast = jax.jit(smooth)
smooth_jit = "taken"


golden_run_lambda_jit = jax.jit(lambda v: v * 2)


def golden_run():
    x = jnp.asarray(np.arange(6, dtype=np.float32))
    for _ in range(3):
        x = smooth_fast(x)
    ys = []
    for i in range(3):
        ys.append(golden_run_lambda_jit(x))
    return x, ys
