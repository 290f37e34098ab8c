"""`custom_gradient(..., auxiliary_args=...)` with a misspelled name."""
from phiml import math

GOLDEN = {
    "findings": ["PML205:18"],
    "unsafe_fixes": True,
}


def scaled(x, factor):
    return x * factor


def scaled_grad(x, factor, y, dy):
    return dy * factor,


scaled_cg = math.custom_gradient(scaled, scaled_grad, auxiliary_args='factor')
