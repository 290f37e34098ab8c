"""Consecutive pairs `zip(ts[:-1], ts[1:])`: both slices have one length (`len(ts) - 1`, or 0), so
`scan` over them runs exactly the iterations of `zip`; `.at[...]` updates keep the carry's shape and
dtype, and the calls pass 64 rows (a zero-length `scan` would raise under `jax.disable_jit()`): a
safe fix. The loop over a static Python list of sizes (`zip(SIZES, SIZES[1:])`) and the
one over `range(x.ndim)` are configuration, not data: left alone."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML206:21"],
    "framework": "jax",
    "backends": ["jax"],
}

SIZES = [3, 5, 9, 17]


@jax.jit
def trapezoid(ts, rate):
    total = jnp.zeros(2)
    def trapezoid_body(total, elements):
        t0, t1 = elements
        total = total.at[0].add(0.5 * (t1 - t0 + 0.1) * (jnp.exp(-rate * t0) + jnp.exp(-rate * t1)))
        total = total.at[1].max(t1 * t0)
        return total, None
    total, _ = jax.lax.scan(trapezoid_body, total, (ts[:-1], ts[1:]))
    return total


@jax.jit
def rescale(x):
    for n_in, n_out in zip(SIZES, SIZES[1:]):
        x = x * (n_out / n_in)
    for axis in range(x.ndim):
        x = x - 0.5 * jnp.mean(x, axis=axis, keepdims=True)
    return x


def golden_run():
    return [trapezoid(jnp.ones(64), 1.0), trapezoid(jnp.full(64, 0.5), 2.0), rescale(jnp.ones((2, 3)))]
