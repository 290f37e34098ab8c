"""`import jax` and `import jax.numpy` both bind `jax` to the same module: one binding, so a wrapper
reading `jax` is hoisted to module level. A store into a module's attribute (`os.environ[...] =`)
changes only that path: a wrapper reading it stays. A module name rebound to another value (`np`) is
unstable for every wrapper that reads it."""
import os

import jax
import jax.numpy
import numpy as np

os.environ["GOLDEN_SCALE"] = "3"
np = __import__("numpy")

GOLDEN = {"findings": ["PML302:23", "PML302:30", "PML302:34"], "framework": "jax", "backends": ["jax"],
          "compiles": [3, 3]}


def double(x):
    return x * 2.0


def doubled(x):
    return jax.jit(double)(x)


def env_scaled(x):
    return jax.jit(lambda v: v * float(os.environ["GOLDEN_SCALE"]))(x)


def as_float(x):
    return jax.jit(lambda v: v.astype(np.float32))(x)


def golden_run():
    x = jax.numpy.arange(3.0)
    return [doubled(x) for _ in range(3)], env_scaled(x), as_float(x)
