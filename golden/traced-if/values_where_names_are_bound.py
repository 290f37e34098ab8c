"""Raw jax, reported, not rewritten: a tuple `where` would stack into one array (the `if` kept a tuple);
a starred target (`*b` binds a list, not one element); a value that would be written where a
comprehension or a lambda binds the name the branch assigns."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:14", "PML201:23", "PML201:33", "PML201:43"],
}


@jax.jit
def cheap_pair(x):
    if jnp.max(x) > 1:
        a = x, x
    else:
        a = x * 2, x * 2
    return a


@jax.jit
def first_and_rest(x):
    if jnp.sum(x) > 0:
        a, *b = x[0], x[1]
    else:
        a, *b = x[1], x[0]
    return a + b[0]


@jax.jit
def rebound_in_comprehension(x):
    a = x
    if jnp.sum(x) > 0:
        a = x * 2
        y = jnp.stack([a + 1 for a in x])
    else:
        y = x
    return y + a


@jax.jit
def rebound_in_lambda(x):
    if jnp.sum(x) > 0:
        a = x * 2
        y = jax.tree_util.tree_map(lambda v, *, a=1.0: v * a, x) + a
    else:
        a = x
        y = x
    return y + a
