"""Removed helpers without a drop-in replacement: reported, never rewritten."""
from jax import tree_util

GOLDEN = {"findings": ["PML603:8", "PML603:9"]}


def legacy(treedef, children, cls):
    tree = tree_util.build_tree(treedef, children)
    tree_util.register_keypaths(cls, lambda obj: [])
    return tree
