"""Import aliases and the partial spelling of both transforms."""
import functools

import jax.numpy as jnp
import numpy as np
from jax import jit as J
from jax import vmap as V

GOLDEN = {"findings": ["PML301:16", "PML301:17"], "framework": "jax", "backends": ["jax"], "compiles": [2, 2]}


def energy(x, k):
    return jnp.sum(x ** 2) * k


plain = V(J(energy), in_axes=(0, None))
configured = functools.partial(V, in_axes=(0, None))(functools.partial(J, static_argnums=1)(energy))


def golden_run():
    x = jnp.asarray(np.arange(8, dtype=np.float32).reshape(2, 4))
    return plain(x, 2.0), configured(x, 3)
