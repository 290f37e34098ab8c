"""Raw jax: lax.custom_root with equation and solver lambdas built on every call."""
import jax.numpy as jnp
from jax import lax

GOLDEN = {
    "findings": ["PML101:13", "PML101:17"],
    "framework": "jax",
    "backends": ["jax"],
}


def _cube_root_tangent_solve(g, r):
    return r / 3.


def cube_root(y):
    return lax.custom_root(lambda x: x ** 3 - y, jnp.ones_like(y), _newton, _cube_root_tangent_solve)


def _newton(f, x0):
    x = x0
    for _ in range(20):
        x = x - f(x) / (3 * x ** 2)
    return x


def golden_run():
    return [cube_root(jnp.array([8., 27.]) * i) for i in range(1, 3)]
