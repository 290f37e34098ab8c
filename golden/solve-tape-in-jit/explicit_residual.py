"""The portable form: the jit-compiled function returns its residual. Not reported."""
from phiml import math

GOLDEN = {
    "findings": [],
}


@math.jit_compile_linear
def operator(x):
    return 2 * x


@math.jit_compile
def solve(y):
    x = math.solve_linear(operator, y, math.Solve('CG', 1e-5, 1e-5, x0=y * 0))
    return x, math.max(abs(operator(x) - y))


def run(y):
    x, residual = solve(y)
    return x, float(residual)
