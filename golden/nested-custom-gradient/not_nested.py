"""Custom gradients that do not nest: plain helpers in the forward, the op used outside, jax's own custom_vjp."""
import jax
import jax.numpy as jnp
from phiml import math

GOLDEN = {
    "findings": [],
}


def helper(x):
    return x * 2


def clip_forward(x):
    return math.clip(helper(x), -1, 1)


def clip_gradient(inputs, y, dy):
    return {'x': dy}


clip = math.custom_gradient(clip_forward, clip_gradient)


def uses_clip(x):
    return clip(x) + 1  # not a custom-gradient forward


@jax.custom_vjp
def inner(x):
    return jnp.sin(x)


inner.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (g * jnp.cos(x),))


@jax.custom_vjp
def outer(x):
    return inner(x) * 2  # jax nests custom_vjp fine


outer.defvjp(lambda x: (outer(x), x), lambda x, g: (g * 2 * jnp.cos(x),))
