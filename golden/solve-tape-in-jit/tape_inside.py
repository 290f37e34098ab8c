"""A SolveTape opened inside a jit-compiled function."""
from phiml import math

GOLDEN = {
    "findings": ["PML505:16"],
}


@math.jit_compile_linear
def operator(x):
    return 2 * x


@math.jit_compile
def solve(y):
    with math.SolveTape() as tape:
        x = math.solve_linear(operator, y, math.Solve('CG', 1e-5, 1e-5, x0=y * 0))
    return x, tape[0].iterations
