"""`from jax import jit, tree_map, tree_leaves as leaves`: the removed names are imported from
`jax.tree` under the same local names; `jit` stays where it was."""
from jax import jit, tree_map, tree_leaves as leaves  # pytree helpers
import jax.numpy as jnp
import numpy as np

GOLDEN = {
    "findings": ["PML603:3"],
    "migration": {"framework": "jax", "backends": ["jax"], "original_error": "ImportError"},
}


@jit
def golden_run():
    state = {"u": jnp.arange(4.0), "v": jnp.ones(4)}
    doubled = tree_map(lambda a: 2 * a, state)
    return doubled, len(leaves(state))


def golden_expected():
    return {"u": 2 * np.arange(4.0), "v": 2 * np.ones(4)}, 2
