"""Must not change: a property of the method's class that returns a shape is a Python value under jit.

`self.d` reads `self.data.shape[0]` and `self.steps` reads `self.d`: both are Python values while
`f` is traced, however `self`'s arrays are traced, and so are the `if` and the `range` on them (a
`cached_property`, and a property with a setter beside it, alike). Each used to be reported as a
value whose being traced cannot be told.
"""
import functools

import equinox as eqx
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


@jax.tree_util.register_pytree_node_class
class Samples:
    def __init__(self, data):
        self.data = data

    def tree_flatten(self):
        return (self.data,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

    @property
    def d(self):
        return self.data.shape[0]

    @functools.cached_property
    def steps(self):
        return self.d - 1

    @jax.jit
    def smoothed(self, x):
        if self.d != 1:
            x = x + self.data.mean()
        for _ in range(self.steps):
            x = x * 0.5
        return x


class Stack(eqx.Module):
    layers: jax.Array

    @property
    def depth(self):
        return self.layers.shape[0]

    @depth.setter
    def depth(self, value):
        raise AttributeError("fixed")

    @eqx.filter_jit
    def __call__(self, x):
        for i in range(self.depth):
            x = jnp.tanh(self.layers[i] * x)
        if self.depth > 2:
            x = x * 2
        return x


def golden_run():
    return [Samples(jnp.arange(3.)).smoothed(jnp.ones(2)), Samples(jnp.ones(1)).smoothed(jnp.ones(2)),
            Stack(jnp.ones(3) * 0.1)(jnp.ones(())), Stack(jnp.ones(1))(jnp.ones(()))]
