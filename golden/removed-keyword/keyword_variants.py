"""The renamed keywords in other spellings: `from phi.math import Solve`, an `iterate(f=...)`, a
multi-line call with a trailing comma, a list and a variable as `f_args`."""
from phi.math import Solve, iterate, solve_linear
from phiml import math as m


def step(x):
    return x * 2


def run(f, y, extra):
    solve = Solve("CG", relative_tolerance=1e-5, absolute_tolerance=0.0)
    listed = solve_linear(f, y, solve, f_args=[extra])
    stored = m.solve_linear(
        f,
        y,
        solve,
        f_args=extra,
        f_kwargs={"mode": 1},
    )
    repeated = iterate(f=step, iterations=3)
    return listed, stored, repeated


GOLDEN = {"findings": ["PML605:12", "PML605:12", "PML605:13", "PML605:18", "PML605:21"]}
