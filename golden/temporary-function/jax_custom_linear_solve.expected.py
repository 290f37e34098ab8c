"""Raw jax: matvec and solve lambdas built on every call of an eager function."""
import jax
import jax.numpy as jnp
from jax import lax

GOLDEN = {
    "findings": ["PML101:14", "PML101:18"],
    "framework": "jax",
    "backends": ["jax"],
}


def _halve_matvec(x):
    return 2. * x


def _halve_solve(matvec, y):
    return y / 2.


def halve(b):
    return lax.custom_linear_solve(_halve_matvec, b, solve=_halve_solve)


def golden_run():
    return [halve(jnp.arange(4.) * i) for i in range(3)]
