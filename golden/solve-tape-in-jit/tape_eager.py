"""A SolveTape in eager code, around eager solves: what it is for. Not reported."""
from phiml import math

GOLDEN = {
    "findings": [],
}


@math.jit_compile_linear
def operator(x):
    return 2 * x


def solve(y):
    with math.SolveTape() as tape:
        x = math.solve_linear(operator, y, math.Solve('CG', 1e-5, 1e-5, x0=y * 0))
    return x, tape[0].iterations
