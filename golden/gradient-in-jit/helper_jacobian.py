"""A helper called from a jit-compiled function takes a jacobian: traced too."""
from phiml import math

GOLDEN = {
    "findings": ["PML504:14"],
}


def residual(x):
    return x ** 2 - 1


def newton_direction(x):
    jac = math.jacobian(residual, 'x', get_output=False)(x)
    return residual(x) / jac


@math.jit_compile
def newton_step(x):
    return x - newton_direction(x)
