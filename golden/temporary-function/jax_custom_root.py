"""Raw jax: lax.custom_root with equation and solver lambdas built on every call. The equation
captures `y` (reported); the tangent solve is traced on every call however it is defined
(measured), so it is not lifted. Must not change."""
import jax.numpy as jnp
from jax import lax

GOLDEN = {
    "findings": ["PML101:15"],
    "framework": "jax",
    "backends": ["jax"],
}


def cube_root(y):
    return lax.custom_root(lambda x: x ** 3 - y, jnp.ones_like(y), _newton, lambda g, r: r / 3.)


def _newton(f, x0):
    x = x0
    for _ in range(20):
        x = x - f(x) / (3 * x ** 2)
    return x


def golden_run():
    return [cube_root(jnp.array([8., 27.]) * i) for i in range(1, 3)]
