"""Inner jits that are more than inlined code, found in review: reported, not removed."""
from functools import partial

import jax
import jax.numpy as jnp

GOLDEN = {"findings": ["PML303:16", "PML303:24", "PML303:28"]}


def g(x):
    return x * 2


@jax.jit
def uses_the_jit_object(x):
    return jax.jit(g).eval_shape(x)


@partial(jax.jit, donate_argnums=0)
def donating(x):
    return x + 1


fast_donating = jax.jit(donating)


def also_called_directly(x):
    return jax.jit(g)(x)


wrapped = jax.jit(also_called_directly)
