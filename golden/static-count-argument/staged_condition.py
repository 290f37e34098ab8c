"""`err` comes from a jax operation on `tol`: under jit it is a tracer even when `tol` is a Python float
(omnistaging), so declaring `tol` static would not fix `while err > tol:` (one trace per value, the same
error). The loop itself is converted (PML203: `err` and `err / 2` are one 0-d float type), and runs under jit."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML203:19"],
    "unsafe_fixes": True,
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def refine(x, tol):
    err = jnp.abs(tol * 64.0)
    while err > tol:
        err = err / 2
        x = x + err
    return x


def golden_run():
    x = jnp.arange(3.)
    return [refine(x, 0.5), refine(x, 0.125)]
