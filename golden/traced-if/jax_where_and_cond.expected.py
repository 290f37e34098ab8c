"""Raw jax: a cheap selection becomes `jnp.where`; a branch with real work becomes `lax.cond`."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:15", "PML201:21"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def flip(x):
    return jnp.where(jnp.all(x > 0), x * 2, -x)


@jax.jit
def implicit_step(x, dt):
    # an expensive branch only runs when it is selected
    y = jax.lax.cond(jnp.max(x) > 1, lambda: jnp.linalg.solve(jnp.eye(2) * (1 + dt), x), lambda: x)
    return y


def golden_run():
    x = jnp.array([1., 2.])
    return [flip(x), flip(-x), implicit_step(x, 0.5), implicit_step(x * 0.1, 0.5)]
