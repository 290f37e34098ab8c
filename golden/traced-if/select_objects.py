"""A selection whose branches are objects, not arrays: reported, never rewritten.

Each condition is a tracer (`(guess > 0).all` of a traced argument), but what each `if` chooses is no
array: a `Solve` (a parameter declared `Solve`, which PhiML keeps auxiliary as no tensor) or an update of
one (`copy_with(solve, x0=...)`), an object a class makes (`Solve(...)`), a Shape. `math.where` cannot
hold any of them and would raise on every call: the rewrite PhiFlow's `make_incompressible` was once
given, `math.where(<Shape>, copy_with(solve, ...), solve)`. So the findings say why, and offer no fix.
Only numpy runs the case: PhiML's jit does nothing there, and the other backends fail on the traced `if`.
"""
from phiml import math
from phiml.math import Solve, channel, copy_with, spatial

GOLDEN = {
    "findings": ["PML201:32", "PML201:39", "PML201:45"],
    "unsafe_fixes": True,
    "backends": ["numpy"],
    "messages": {
        "PML201:32": "a branch is an update of a `Solve`, not an array",
        "PML201:39": "a branch is a `Solve` object, not an array",
        "PML201:45": "a branch is a Shape, not an array",
    },
}


@math.jit_compile_linear
def double(x):
    return 2 * x


@math.jit_compile
def solve_from(y, guess, solve: Solve):
    if (guess > 0).all:
        solve = copy_with(solve, x0=guess)
    return math.solve_linear(double, y, solve)


@math.jit_compile
def choose_solver(y, guess):
    solve = Solve('CG', 1e-5, 1e-5, x0=guess) if (guess > 0).all else Solve('biCG-stab', 1e-5, 1e-5, x0=guess * 0)
    return math.solve_linear(double, y, solve)


@math.jit_compile
def reduced(x):
    dims = spatial(x) if (x > 0).all else channel(x)
    return math.sum(x, dims)


def golden_run():
    y = math.tensor([2., 4.], spatial('x'))
    guess = math.tensor([.5, 1.5], spatial('x'))
    solve = Solve('CG', 1e-5, 1e-5, x0=guess * 0)
    return [solve_from(y, guess, solve), solve_from(y, -guess, solve), choose_solver(y, guess), choose_solver(y, -guess),
            reduced(guess), reduced(-guess)]
