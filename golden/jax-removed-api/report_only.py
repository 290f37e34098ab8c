"""No drop-in replacement: reported with the fix to make by hand, never rewritten."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import host_callback
from jax.numpy import NINF

GOLDEN = {"findings": ["PML604:5", "PML604:6", "PML604:14", "PML604:15", "PML604:16", "PML604:17", "PML604:18"]}


def legacy(x, devices):
    host_callback.id_print(x)
    return (
        jnp.in1d(x, jnp.array([1, 2])),
        jax.device_put_replicated(x, devices),
        lax.tie_in(print(x), x),
        isinstance(x, jax.random.KeyArray),
        jnp.fix(x, out=None),
        NINF,
    )
