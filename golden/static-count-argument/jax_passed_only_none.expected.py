"""A parameter every call passes `None` and one whose call's extra keyword lands in `**kwargs`: jit
flattens `None` to no leaves, so the function sees `None` and the `if` works; the other keeps its
default. Both are constants at trace time today (a warning, not "it raises"); declaring them static
(safe: no call changes) keeps them working for a caller that passes a number."""
import jax
import jax.numpy as jnp
import functools

GOLDEN = {
    "findings": ["PML204:16", "PML204:23"],
    "framework": "jax",
    "backends": ["jax"],
}


@functools.partial(jax.jit, static_argnames=('n',))
def sample(x, n=None):
    n = 4 if n is None else n
    if n % 2:
        x = -x
    return x * n


def truncate(x, rank: int = -1, **options):
    if rank > 0:
        return x[:rank]
    return x


truncate_jit = jax.jit(truncate, static_argnames=('rank',))


def golden_run():
    x = jnp.array([1., -3., 2.])
    return [sample(x, n=None), sample(x, None), truncate_jit(x, verbose=True)]
