"""PML603 jax-tree-api."""
from __future__ import annotations

from rewriter.rule import Example, Unchanged, dedented
from rewriter.findings import Safety, Severity

from ._ast_migration import AstTableMigration
from ._migration_rows import JAX_TREE


class JaxTreeApi(AstTableMigration):
    """The top-level pytree functions `jax.tree_map`, `jax.tree_leaves`, `jax.tree_flatten`,
    `jax.tree_unflatten`, `jax.tree_structure`, `jax.tree_transpose` and `jax.treedef_is_leaf` were
    deprecated in jax 0.4.26 and removed in jax 0.6.0; `tree_multimap` went in jax 0.3.16. On the
    installed jax each raises AttributeError (ImportError for `from jax import tree_map`).

    Each is rewritten to the `jax.tree` function (`jax.tree_map(f, t)` -> `jax.tree.map(f, t)`,
    `j.tree_leaves` -> `j.tree.leaves` for `import jax as j`), wherever the name is read — also when
    passed as a value — and `from jax import tree_map` becomes `from jax.tree import map as tree_map`,
    so every use in the file keeps its name. References are found by qualified name: a function of
    your own called `tree_map`, `jax.tree_util.tree_map` (still current) and `jax.tree.map` are left
    alone. `build_tree` and `register_keypaths` have no drop-in replacement and are reported.
    """

    CODE = "PML603"
    NAME = "jax-tree-api"
    SUMMARY = "`jax.tree_map` and the other removed top-level pytree functions become `jax.tree.map` etc."
    SAFETY = Safety.SAFE
    SEVERITY = Severity.ERROR
    FIX_SAFETY = (
        "Safe: the removed names were the functions `jax.tree_util` still has (jax 0.5.3 defined `jax.tree_map` as "
        "`jax._src.tree_util.tree_map`), and `jax.tree.map` & co. call them with the same parameters (checked by "
        "comparing signatures on the installed jax). `jax.tree_util.build_tree` and `register_keypaths` are reported only."
    )
    EXAMPLES = (
        Example(
            "params = {'w': jnp.ones(3), 'b': jnp.zeros(1)}\nscaled = jax.tree_map(lambda p: 0.5 * p, params)\n",
            "params = {'w': jnp.ones(3), 'b': jnp.zeros(1)}\nscaled = jax.tree.map(lambda p: 0.5 * p, params)\n",
        ),
        Example(
            dedented("""
                from jax import tree_leaves

                leaves = tree_leaves({'a': 1, 'b': (2, 3)})
            """),
            dedented("""
                from jax.tree import leaves as tree_leaves

                leaves = tree_leaves({'a': 1, 'b': (2, 3)})
            """),
            note="imported by name: the import is rewritten, the uses keep their name",
        ),
        Unchanged("leaves = jax.tree_util.tree_leaves({'a': 1, 'b': (2, 3)})\n", "`jax.tree_util.tree_leaves`, still current"),
        Unchanged(dedented("""
            def tree_map(f, tree):
                return [f(x) for x in tree]

            doubled = tree_map(lambda x: 2 * x, [1, 2])
        """), "a function of your own called `tree_map`"),
    )
    TRIGGERS = (("tree_",), ("treedef_is_leaf",))
    MIGRATIONS = JAX_TREE
