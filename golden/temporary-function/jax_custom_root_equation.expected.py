"""`lax.custom_root` keys the trace of its equation on the function object (measured on jax 0.10.2:
a module-level one is traced twice per eager call, a new one three times): a lambda equation that
captures nothing is lifted. Its solvers are traced once a call however they are defined, so the
tangent-solve lambda stays where it is."""
import jax.numpy as jnp
from jax import lax

GOLDEN = {
    "findings": ["PML101:18", "PML101:22"],
    "messages": {"PML101:22": "`custom_root` traces its `tangent_solve` (a lambda) again"},
    "framework": "jax",
    "backends": ["jax"],
}


def _sqrt2_equation(x):
    return x ** 2 - 2.0


def sqrt2(guess):
    # `tangent_solve` is not lifted (no cache hit to gain); the equation is
    return lax.custom_root(_sqrt2_equation, guess, _newton, lambda g, r: r / g(1.0))


def _newton(f, x0):
    x = x0
    for _ in range(8):
        x = x - f(x) / (2 * x)
    return x


def golden_run():
    return [sqrt2(jnp.float32(1.0)), sqrt2(jnp.float32(3.0))]
