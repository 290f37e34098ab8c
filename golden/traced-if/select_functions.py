"""`where` over values that are not arrays (functions, strings) raises on every call: reported, never rewritten.

`is_ref` has no call in this file to say it is a flag, so it counts as traced; the branches are a jax
function and a NumPy-style function, and a mode string."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:16", "PML201:17"],
    "unsafe_fixes": True,
}


@jax.jit
def apply(a, b, is_ref):
    fn = jax.lax.dot if is_ref else jnp.matmul
    mode = "exact" if is_ref else "fast"
    return fn(a, b), mode
