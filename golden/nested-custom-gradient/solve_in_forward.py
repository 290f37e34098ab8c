"""`solve_linear` inside a custom-gradient forward: it is a custom-gradient function itself. Reported."""
from phiml import math

GOLDEN = {
    "findings": ["PML502:16"],
}


@math.jit_compile_linear
def laplace_operator(x):
    return math.laplace(x, padding=0)


def implicit_forward(y):
    x0 = y * 0
    return math.solve_linear(laplace_operator, y, math.Solve('CG', 1e-5, 1e-5, x0=x0))


def implicit_gradient(inputs, x, dx):
    return {'y': dx}


implicit = math.custom_gradient(implicit_forward, implicit_gradient)
