"""A helper of a jit-compiled function opens the tape: traced as well."""
from phiml.math import SolveTape, Solve, jit_compile, jit_compile_linear, solve_linear

GOLDEN = {
    "findings": ["PML505:15"],
}


@jit_compile_linear
def operator(x):
    return 2 * x


def checked_solve(y):
    with SolveTape() as tape:
        x = solve_linear(operator, y, Solve('CG', 1e-5, 1e-5, x0=y * 0))
    return x, tape[0].residual


@jit_compile
def step(y):
    return checked_solve(y)[0]
