"""A reference in parentheses: the message names the function, not its parentheses (read on `ast`, where
the parentheses are not part of the name); the fix writes the new name without them."""
import jax
import numpy as np

GOLDEN = {
    "findings": ["PML603:13"],
    "migration": {"framework": "jax", "backends": ["jax"], "original_error": "AttributeError"},
}


def golden_run():
    return (jax.tree_map)(lambda leaf: 2 * leaf, {"x": np.ones(2)})


def golden_expected():
    return {"x": 2 * np.ones(2)}
