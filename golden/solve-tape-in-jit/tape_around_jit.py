"""A SolveTape around a call of a jit-compiled function: it records only while the function is traced."""
from phiml import math

GOLDEN = {
    "findings": ["PML505:20"],
}


@math.jit_compile_linear
def operator(x):
    return 2 * x


@math.jit_compile
def solve(y):
    return math.solve_linear(operator, y, math.Solve('CG', 1e-5, 1e-5, x0=y * 0))


def run(y):
    with math.SolveTape() as tape:
        x = solve(y)
    return x, len(tape)
