"""`jax.experimental.pjit.pjit` still works on jax 0.10 but is deprecated for `jax.jit`: its options
are first passed by keyword (the same call), then it is renamed (unsafe: pjit also applies the
shardings of an enclosing `with mesh:`; there is none here)."""
import jax.numpy as jnp
from jax import jit as pjit

GOLDEN = {
    "findings": ["PML604:5", "PML604:20"],
    "unsafe_fixes": True,
    "framework": "jax",
    "backends": ["jax"],
    "compiles": [1, 1],
}


def scale(x, factor):
    return x * factor


fast_scale = pjit(scale, in_shardings=None, out_shardings=None, static_argnums=(1,))


def golden_run():
    x = jnp.arange(4.0)
    return [fast_scale(x, 2), fast_scale(x, 2)]
