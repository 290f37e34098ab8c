"""Current keywords, other libraries' `relative_tolerance`, and your own `Solve`: untouched."""
from phiml import math


class Solve:
    def __init__(self, method, relative_tolerance=1e-5, absolute_tolerance=0.0):
        self.method = method


def solve_linear(f, y, solve, f_args=()):
    return f(y, *f_args)


def iterate(f, iterations):
    return f


mine = Solve("CG", relative_tolerance=1e-3)
own = solve_linear(abs, -1.0, None, f_args=())
loop = iterate(f=abs, iterations=2)
current = math.Solve("CG", rel_tol=1e-5, abs_tol=1e-5, x0=None, max_iterations=10)
traced = math.jit_compile(abs, auxiliary_args="")


def run(f, y, a, b):
    return math.solve_linear(f, y, current, a, b), math.iterate(f, 3, y)


GOLDEN = {"findings": []}
