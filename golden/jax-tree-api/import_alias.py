"""`import jax as j`: the reference is resolved through the alias, also where the function is
passed as a value."""
import jax as j
import numpy as np

GOLDEN = {
    "findings": ["PML603:14", "PML603:15"],
    "migration": {"framework": "jax", "backends": ["jax"], "original_error": "AttributeError"},
}


def golden_run():
    batch = [{"x": np.ones(2)}, {"x": np.zeros(3)}]
    sizes = j.tree_map(lambda leaf: leaf.size, batch)
    counts = list(map(j.tree_leaves, batch))
    return sizes, counts


def golden_expected():
    return [{"x": 2}, {"x": 3}], [[np.ones(2)], [np.zeros(3)]]
