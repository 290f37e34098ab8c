"""`tree_multimap` (removed in jax 0.3.16) and `jax.treedef_is_leaf` (removed in 0.6.0)."""
import jax
from jax import tree_util
from jax.tree_util import tree_multimap
import numpy as np

GOLDEN = {
    "findings": ["PML603:4", "PML603:15", "PML603:16"],
    "migration": {"framework": "jax", "backends": ["jax"], "original_error": "ImportError"},
}


def golden_run():
    a, b = {"p": np.ones(2), "q": 1.0}, {"p": np.full(2, 3.0), "q": 2.0}
    summed = tree_util.tree_multimap(lambda x, y: x + y, a, b)
    leaf = jax.treedef_is_leaf(tree_util.tree_structure(1.0))
    product = tree_multimap(lambda x, y: x * y, a, b)
    return summed, leaf, product


def golden_expected():
    return {"p": np.full(2, 4.0), "q": 3.0}, True, {"p": np.full(2, 3.0), "q": 2.0}
