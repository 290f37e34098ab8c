"""Must not change: `and`/`or` of Python lists of tracers give one of the lists, whose truth is its length.

`leaves and extra` is `leaves` or `extra`, each a list (`tree_leaves` returns a new one); `parts or [x]`
is a list either way; `pieces` is None or a list. So `if leaves and extra:`, `if chosen:` and `if pieces:`
are decided while tracing. Each used to be reported as a condition on a traced value that raises under
`jax.jit`.
"""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


@jax.jit
def total(tree, extra_tree):
    leaves = jax.tree_util.tree_leaves(tree)
    extra = jax.tree_util.tree_leaves(extra_tree)
    if leaves and extra:
        return sum(jnp.sum(v) for v in leaves) + sum(jnp.sum(v) for v in extra)
    return jnp.zeros(())


@jax.jit
def first_or_self(x):
    parts = [x[i] for i in range(x.shape[0]) if i > 0]
    chosen = parts or [x]
    if chosen:
        return chosen[0] * 2
    return x


@jax.jit
def split_sum(x):
    pieces = None
    if x.shape[0] > 2:
        pieces = [x[:2], x[2:]]
    if pieces:
        return pieces[0].sum() + pieces[1].sum()
    return x.sum()


def golden_run():
    return [total({"a": jnp.ones(2)}, [jnp.arange(3.)]), total({"a": jnp.ones(2)}, []),
            first_or_self(jnp.arange(3.)), first_or_self(jnp.ones(1)), split_sum(jnp.arange(4.)), split_sum(jnp.ones(2))]
