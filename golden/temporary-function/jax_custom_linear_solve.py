"""Raw jax: matvec and solve lambdas built on every call of an eager function."""
import jax
import jax.numpy as jnp
from jax import lax

GOLDEN = {
    "findings": ["PML101:14", "PML101:18"],
    "framework": "jax",
    "backends": ["jax"],
}


def halve(b):
    return lax.custom_linear_solve(lambda x: 2. * x, b, solve=lambda matvec, y: y / 2.)


def golden_run():
    return [halve(jnp.arange(4.) * i) for i in range(3)]
