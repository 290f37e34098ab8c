"""Must not change: a raw jax custom_vjp function and its rules defined inside the function that uses
them. Built per call, it costs its construction only: eager calls, `jax.grad` and a `jax.jit` around the
caller trace it no more often than one defined once (measured: docs/benchmarks.md)."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


def clipped_sin_grad(x):
    # sin with a clipped gradient
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    def f_fwd(x):
        return jnp.sin(x), jnp.cos(x)

    def f_bwd(cos_x, g):
        return (jnp.clip(cos_x * g, -0.5, 0.5),)

    f.defvjp(f_fwd, f_bwd)
    return jax.grad(lambda x: f(x).sum())(x)


def golden_run():
    return [clipped_sin_grad(jnp.linspace(0., 3., 5) * i) for i in range(1, 4)]
