"""Containers created inside the traced function are local: appending to them is fine."""
import jax
import jax.numpy as jnp
from phiml import math

GOLDEN = {
    "findings": [],
}


@jax.jit
def powers(x):
    out = []
    for k in range(3):
        out.append(x ** k)
    parts = {}
    parts['sum'] = jnp.sum(x)
    return jnp.stack(out), parts


@math.jit_compile
def collect(u):
    terms = [u]
    terms.extend([u * 2, u * 3])
    return math.stack(terms, math.channel('t'))
