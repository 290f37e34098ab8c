"""Where the harness's own jit changes a function's values (here on purpose: the function asks whether it
is traced; in real code, an iterative solve's last digits), the original eager and the rewrite jitted
differ for both versions alike. The versions are then compared jit for jit and eager for eager: a
rewrite that keeps both is verified, one that changes the eager values is still falsified."""
import jax
import jax.numpy as jnp

SYNTHESIS = {
    "verdicts": {"nudged": "verified", "nudged_wrong": "falsified"},
    "reasons": {"nudged": "the harness's jit alone changes the values", "nudged_wrong": "differ"},
}


def nudged(x):
    return x + x + (0.0 if isinstance(x, jax.core.Tracer) else 1.0)


def nudged_wrong(x):
    return x + x + (0.0 if isinstance(x, jax.core.Tracer) else 3.0)


def main():
    x = jnp.array([1.0, -2.0])
    return nudged(x), nudged_wrong(x)
