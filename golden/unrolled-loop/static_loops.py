"""Must not change: loops whose unroll is small or not over data. A handful of iterations, the
dimensions of a shape, Python configuration lists and dicts, a pytree's leaves, and a long loop that
does no arithmetic."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}

LAYERS = [(4, 8), (8, 8), (8, 2)]


@jax.jit
def model(x, params):
    for _ in range(3):
        x = jnp.tanh(x) + 0.1
    for axis in range(x.ndim):
        x = x - jnp.mean(x, axis=axis, keepdims=True)
    for name, scale in {"a": 1.0, "b": 2.0}.items():
        x = x * scale
    for leaf in jax.tree_util.tree_leaves(params):
        x = x + jnp.sum(leaf)
    for n_in, n_out in LAYERS:
        x = x * (n_out / n_in)
    labels = []
    for i in range(100):
        labels.append(i)
    return x, len(labels)


def golden_run():
    params = {"w": jnp.ones((2, 2)), "b": jnp.zeros(2)}
    return [model(jnp.linspace(0.0, 1.0, 6).reshape(2, 3), params)]
