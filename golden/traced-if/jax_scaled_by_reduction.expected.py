"""Branches that agree once the array algebra is read: `flux * (cap / total)` against `flux`.

`total` is a full reduction of `flux` (`jnp.sum`, `.sum()`): a 0-d array of `flux`'s dtype. `cap` is a
Python number (every call passes one), weak in jax: the quotient keeps `flux`'s float dtype, and the
product has `flux`'s shape and dtype. Every call passes float data, so both branches are float arrays
shaped like `flux`: a safe `lax.cond`. `golden_run` returns the dtypes too, so execution checks them."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:21", "PML201:30"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@jax.jit
def limit(flux, cap):
    total = jnp.sum(flux)
    out = jax.lax.cond(total > cap, lambda: flux * (cap / total), lambda: flux)
    return out


@jax.jit
def normalized(x):
    y = jax.lax.cond(x.max() > 1, lambda: x / x.max() * 2, lambda: x * 2)
    return y


def golden_run():
    f = jnp.array([1., 2., 3.])
    g = jnp.array([0.5, -0.25], dtype=jnp.float16)
    results = [limit(f, 3.0), limit(f, 10.0), normalized(f), normalized(f * 0.1), normalized(g * 4), normalized(g)]
    return results + [str(r.dtype) for r in results] + [r.shape for r in results]
