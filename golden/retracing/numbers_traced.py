"""Python numbers that change every step but are traced, not keyed on: PhiML's `jit_compile` turns a
number that is not an auxiliary argument into a tensor, and `jax.jit` traces a number that is not
static as a weak-typed scalar. Each function traces once: nothing to report."""
import jax
import jax.numpy as jnp
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [1, 1],
}


@math.jit_compile
def advance(u, t):
    return u + 0.1 * math.sin(u + t)


@jax.jit
def decay(x, lr):
    return x * (1 - lr)


def simulate(u, steps, dt=0.25):
    t = 0.0
    for _ in range(steps):
        u = advance(u, t)
        t += dt
    return u


def train(x, epochs, lr0=0.5):
    for epoch in range(epochs):
        x = decay(x, lr0 * 0.9 ** epoch)
    return x


def golden_run():
    # as Python floats: PhiML's jax backend turns on x64 in the interpreter the harness shares
    return simulate(math.tensor([0.0, 0.5, 1.0], spatial('x')), 4), train(jnp.ones(3), 4).tolist()
