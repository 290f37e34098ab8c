"""The removed top-level pytree functions, called through `jax.`: AttributeError on jax 0.10."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {
    "findings": ["PML603:16", "PML603:17", "PML603:18", "PML603:19", "PML603:20", "PML603:21", "PML603:21", "PML603:22"],
    "migration": {"framework": "jax", "backends": ["jax"], "original_error": "AttributeError"},
}


@jax.jit
def golden_run():
    params = {"w": jnp.arange(3.0), "b": (jnp.ones(2), jnp.zeros(1))}
    pairs = [(jnp.ones(1), 2.0 * jnp.ones(1)), (3.0 * jnp.ones(1), 4.0 * jnp.ones(1))]
    scaled = jax.tree_map(lambda p: 0.5 * p, params)
    leaves = jax.tree_leaves(params)
    flat, treedef = jax.tree_flatten(params)
    rebuilt = jax.tree_unflatten(treedef, [2 * leaf for leaf in flat])
    count = jax.tree_structure(params).num_leaves
    outer, inner = jax.tree_structure([0, 0]), jax.tree_structure((0, 0))
    transposed = jax.tree_transpose(outer, inner, pairs)
    return scaled, sum(leaf.sum() for leaf in leaves), rebuilt, count, transposed


def golden_expected():
    w, b0, b1 = np.arange(3.0), np.ones(2), np.zeros(1)
    scaled = {"b": (0.5 * b0, 0.5 * b1), "w": 0.5 * w}
    rebuilt = {"b": (2 * b0, 2 * b1), "w": 2 * w}
    transposed = ([np.ones(1), 3.0 * np.ones(1)], [2.0 * np.ones(1), 4.0 * np.ones(1)])
    return scaled, w.sum() + b0.sum() + b1.sum(), rebuilt, 3, transposed
