"""The renamed keywords in other spellings: `from phi.math import Solve`, an `iterate(f=...)`, a
multi-line call with a trailing comma, a list and a variable as `f_args`."""
from phi.math import Solve, iterate, solve_linear
from phiml import math as m


def step(x):
    return x * 2


def run(f, y, extra):
    solve = Solve("CG", rel_tol=1e-5, abs_tol=0.0)
    listed = solve_linear(f, y, solve, (extra,))
    stored = m.solve_linear(
        f,
        y,
        solve,
        tuple(extra),
        f_kwargs={"mode": 1},
    )
    repeated = iterate(map_function=step, iterations=3)
    return listed, stored, repeated


GOLDEN = {"findings": ["PML605:12", "PML605:12", "PML605:13", "PML605:18", "PML605:21"]}
