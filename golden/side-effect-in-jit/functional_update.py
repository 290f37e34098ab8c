"""Must not be reported: `update` methods that return a new value instead of writing into a container.
An optimizer's `update(grads, state)` (a NamedTuple of functions, as optax's) whose result is unpacked,
a NamedTuple's own `update` that builds a new one (the parameter annotated with that class, or its
result kept), and `update` with two positional arguments, which `dict.update` does not take."""
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": [],
    "framework": "jax",
    "backends": ["jax"],
}


class Transform(NamedTuple):
    init: Callable
    update: Callable


def sgd(rate):
    return Transform(lambda params: (), lambda grads, state: (-rate * grads, state))


def make_step(optimizer: Transform, loss):
    @jax.jit
    def step(params, state, x):
        grads = jax.grad(loss)(params, x)
        updates, state = optimizer.update(grads, state)
        return params + updates, state
    return step


class Flags(NamedTuple):
    code: jnp.ndarray

    def update(self, bit, pred):
        return Flags(self.code | jnp.where(pred, bit, 0))


@jax.jit
def check(flags: Flags, x):
    flags.update(2, x < 0)  # discarded, but `Flags` is no container: nothing is written
    return flags.update(1, x > 0)


@jax.jit
def check_untyped(flags, x):
    new = flags.update(1, x > 0)
    return new


def golden_run():
    step = make_step(sgd(0.1), lambda p, x: jnp.sum(p * x) ** 2)
    params, state = step(jnp.array([1.0, 2.0]), (), jnp.array([0.5, -1.0]))
    flags = Flags(jnp.array(0))
    return [params, check(flags, 1.0).code, check(flags, -1.0).code, check_untyped(flags, 3.0).code]
