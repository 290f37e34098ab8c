"""Your own `tree_map`, methods and locals of that name, and the current jax APIs: untouched. A
compatibility shim that assigns `jax.tree_map` is a store, not a read."""
import jax
import jax.numpy as jnp

GOLDEN = {"findings": []}

if not hasattr(jax, "tree_map"):
    jax.tree_map = jax.tree_util.tree_map


def tree_map(f, tree):
    return [f(x) for x in tree]


class Model:
    def tree_leaves(self):
        return []

    def run(self, tree_flatten):
        return tree_flatten, self.tree_leaves()


def uses(jax, params):
    return jax.tree_map(len, params)  # `jax` is a parameter here, not the module


mine = tree_map(abs, [-1, 2])
current = jax.tree.map(jnp.abs, [-1.0])
still_supported = jax.tree_util.tree_map(jnp.abs, [-1.0])
tree_leaves = jax.tree.leaves({"a": 1})
