"""Consecutive pairs of a time grid, `zip(ts, ts[1:])`, inside `jax.jit`: one iteration per grid
point, unrolled. `scan` over `(ts[:-1], ts[1:])` (where `zip` stops) computes the same products;
`ts` is an array at every call, but nothing proves the rows keep `y`'s shape: an unsafe fix (applied
here). The counted loop below it reads its index only to index arrays: a safe fix."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML206:18", "PML206:25"],
    "unsafe_fixes": True,
    "framework": "jax",
    "backends": ["jax"],
}


@jax.jit
def integrate(ts, y):
    def integrate_body(y, elements):
        t0, t1 = elements
        y = y + (t1 - t0) * jnp.cos(t0) * y
        return y, None
    y, _ = jax.lax.scan(integrate_body, y, (ts[:-1], ts[1:]))
    return y


@jax.jit
def shift_left(x):
    def shift_left_body(n, x):
        x = x.at[n].set(x[n + 1] * 0.5 + x[n] * 0.5)
        return x
    x = jax.lax.fori_loop(0, x.shape[0] - 1, shift_left_body, x)
    return x


def golden_run():
    ts = jnp.linspace(0.0, 1.0, 30)
    return [integrate(ts, jnp.ones(3)), integrate(ts * 2.0, jnp.arange(3.0)),
            shift_left(jnp.arange(6.0)), shift_left(jnp.linspace(0.0, 1.0, 9))]
