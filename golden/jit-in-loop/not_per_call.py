"""Wrappers built on purpose: a factory, a table of variants, a module-level wrapper, a loop's iterable."""
from functools import partial

import jax
import jax.numpy as jnp
from phiml import math

GOLDEN = {"findings": []}


def scaled(x, k):
    return x * k


def make_fast(f):
    return jax.jit(f)


variants = {k: jax.jit(partial(scaled, k=k)) for k in range(3)}
fast_scaled = math.jit_compile(scaled, auxiliary_args="k")


def apply_all(x, fns):
    compiled = []
    for f in fns:
        compiled.append(jax.jit(f))
    for g in [jax.jit(scaled)]:
        x = g(x, 2)
    return x, compiled
