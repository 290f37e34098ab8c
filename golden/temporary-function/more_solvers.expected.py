"""solve_nonlinear, jacobian and Solve.with_preprocessing with functions built per call.
Not executed: the eager reference (PhiML on numpy) has no gradients for these solvers."""
from phiml import math
from phiml.math import Solve

GOLDEN = {"findings": ["PML101:10", "PML101:14", "PML101:18", "PML101:34"]}


def _root_equation(x):
    return x ** 3 - 8


def root(y, x0):
    return math.solve_nonlinear(_root_equation, y, Solve('Newton', 0, 1e-5, x0=x0))


def _slope_function(x):
    return math.sum(x ** 2)


_slope_jacobian = math.jacobian(_slope_function, wrt='x', get_output=False)


def slope(x):
    return _slope_jacobian(x)


@math.jit_compile_linear
def _scaled_operator(x):
    return 2 * x


def _scaled_preprocess_y(v, s, k):
    return v * k * s


def scaled(solve, y, s):
    return math.solve_linear(_scaled_operator, y, solve.with_preprocessing(_scaled_preprocess_y, s, 1.))
