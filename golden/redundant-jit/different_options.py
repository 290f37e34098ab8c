"""The outer jit has its own options, or mixes frameworks: reported, never changed."""
import jax
import jax.numpy as jnp
import tensorflow as tf
from phiml import math

GOLDEN = {"findings": ["PML303:15", "PML303:16", "PML303:16"]}


@jax.jit
def step(x, n):
    return x * n


static_step = jax.jit(step, static_argnums=1)
mixed = tf.function(math.jit_compile(step))
