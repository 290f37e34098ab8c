"""A custom-gradient forward calls another custom-gradient function: jit on torch fails."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML502:24"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"torch": "AssertionError"},
}


def clip_forward(x):
    return math.clip(x, -1, 1)


def clip_gradient(inputs, y, dy):
    return {'x': dy}


clip = math.custom_gradient(clip_forward, clip_gradient)


def double_forward(x):
    return clip(x) * 2


def double_gradient(inputs, y, dy):
    return {'x': dy * 2}


double = math.custom_gradient(double_forward, double_gradient)


@math.jit_compile
def run(x):
    return double(x) + 1


def golden_run():
    x = math.tensor([0.5, 2.0, -3.0], spatial('x'))
    return [run(x), run(x * 0.25)]
