"""Every call of `pick`, in two other modules, passes `total` as a Python literal: it is configuration.

The branches differ in shape (a sum and an array), so `where`/`cond` would broadcast or raise: the fix
declares `total` static in model.py, and says which calls that rests on.
"""
import jax.numpy as jnp

from model import pick
from train import train_step

GOLDEN = {
    "findings": ["model.py:PML204:7"],
    "messages": {"model.py:PML204:7": "train.py:8"},
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


def golden_run():
    v = jnp.arange(3.)
    return [train_step(v), pick(v, False)]
