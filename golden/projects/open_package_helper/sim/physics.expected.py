"""Public helpers of an installable package that main.py calls only from a jit-compiled `step`.

Users of the package may call them eagerly: `implicit` builds its operator anew on each such call
(PML101, lifted), and `_private_implicit`, which nothing outside the package calls, runs only inside
`step`'s trace, where its operator is built once per trace (not reported).
"""
from phiml import math


@math.jit_compile_linear(forget_traces=True)
def _implicit_sharpen(x, dt):
    return x - dt * math.laplace(x)


def implicit(u, dt):
    return math.solve_linear(_implicit_sharpen, u, math.Solve('CG', 1e-5, 1e-5, x0=u), dt)


def _private_implicit(u, dt):
    @math.jit_compile_linear
    def sharpen(x):
        return x - dt * math.laplace(x)
    return math.solve_linear(sharpen, u, math.Solve('CG', 1e-5, 1e-5, x0=u))


def damp(u):
    return math.where(math.max(u) > 2, u * 0.5, u)
