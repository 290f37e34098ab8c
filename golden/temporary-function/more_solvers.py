"""solve_nonlinear, jacobian and Solve.with_preprocessing with functions built per call.
Not executed: the eager reference (PhiML on numpy) has no gradients for these solvers."""
from phiml import math
from phiml.math import Solve

GOLDEN = {"findings": ["PML101:10", "PML101:14", "PML101:18", "PML101:34"]}


def root(y, x0):
    return math.solve_nonlinear(lambda x: x ** 3 - 8, y, Solve('Newton', 0, 1e-5, x0=x0))


def slope(x):
    return math.jacobian(lambda x: math.sum(x ** 2), wrt='x', get_output=False)(x)


def scaled(solve, y, s):
    return math.solve_linear(math.jit_compile_linear(lambda x: 2 * x), y, solve.with_preprocessing(lambda v, k: v * k * s, 1.))
