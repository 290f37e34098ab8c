"""One caller of `pick`: the flag is a Python literal."""
import jax.numpy as jnp

from model import pick


def train_step(v):
    return pick(v, True)
