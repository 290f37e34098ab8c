"""Factories: each call builds a new jit function (a decorated def, and a plain def for the caller to wrap)."""
import jax


def make_step(dt):
    @jax.jit
    def step(x):
        return x + dt * x
    return step


def make_decay(rate):
    def decay(x):
        return x * (1. - rate)
    return decay
