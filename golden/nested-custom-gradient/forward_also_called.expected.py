"""The forward def is also called on its own: `inner.f` would drop the inner gradient there (unsafe)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML502:24"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "tensorflow"],
}


def soft_forward(x):
    return math.tanh(x)


def soft_gradient(inputs, y, dy):
    return {'x': dy * (1 - y ** 2)}


soft = math.custom_gradient(soft_forward, soft_gradient)


def outer_forward(x):
    return soft.f(x) + x


def outer_gradient(inputs, y, dy):
    return {'x': dy}


outer = math.custom_gradient(outer_forward, outer_gradient)


def golden_run():
    x = math.tensor([0.5, -1.0], spatial('x'))
    return [outer(x), outer_forward(x)]
