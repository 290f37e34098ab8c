"""Rows of a data array, with their index, `enumerate(xs)`: one iteration per row, unrolled. `scan`
over `(jnp.arange(len(xs)), xs)` gives the same pairs; the index only indexes an array (`.at[k]`),
the calls pass `(60, 3)` float arrays (rows shaped like the carry `h`, so the carry keeps its type),
and every call has rows, so `jnp.stack(hs, axis=0)` is scan's stacked output: a safe fix. A count
bound to a local first (`n = x.shape[0]`) is read through it. A loop over a traced list of layers
(`enumerate(layers)`, no sign of an array) and a local count of a static list are left alone."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML206:22", "PML206:32"],
    "framework": "jax",
    "backends": ["jax"],
}

SIZES = [4, 4, 4]


@jax.jit
def encode(xs, h, out):
    def encode_body(carry, elements):
        h, out = carry
        k, row = elements
        h = jnp.tanh(h + row)
        out = out.at[k].set(jnp.sum(h))
        hs_item = h * 2.0
        return (h, out), hs_item
    (h, out), hs_stacked = jax.lax.scan(encode_body, (h, out), (jnp.arange(len(xs)), xs))
    return hs_stacked, out


@jax.jit
def prefix(x):
    n = x.shape[0]
    def prefix_body(i, x):
        x = x.at[i].add(0.5 * x[i - 1])
        return x
    x = jax.lax.fori_loop(1, n, prefix_body, x)
    return x


@jax.jit
def layered(layers, x):
    for k, layer in enumerate(layers):
        x = jnp.tanh(x * layer) + k
    count = len(SIZES)
    for j in range(count):
        x = x + SIZES[j]
    return x


def golden_run():
    return [encode(jnp.ones((60, 3)), jnp.zeros(3), jnp.zeros(60)),
            encode(jnp.zeros((60, 3)), jnp.ones(3), jnp.ones(60)),
            prefix(jnp.arange(7.0)), prefix(jnp.linspace(1.0, 2.0, 70)), prefix(jnp.ones(1)),
            layered([jnp.ones(2), jnp.full(2, 0.5)], jnp.arange(2.0))]
