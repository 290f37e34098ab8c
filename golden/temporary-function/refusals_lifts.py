"""Operators whose captured values cannot be passed explicitly without changing what they compute."""
from phiml import math
from phiml.math import Solve

GOLDEN = {"findings": ["PML101:14", "PML101:22", "PML101:30", "PML101:42", "PML101:49", "PML101:57", "PML101:71"]}


def declared_auxiliary(u, dt, nu):
    # `nu` would become a parameter outside `auxiliary_args`: traced as a linear input
    @math.jit_compile_linear(auxiliary_args='dt')
    def operator(x, dt):
        return x - dt * nu * math.laplace(x)

    return math.solve_linear(operator, u, Solve('CG', x0=u), dt)


def unpacked(u, dt, options):
    @math.jit_compile_linear
    def operator(x):
        return x - dt * math.laplace(x)

    return math.solve_linear(operator, **options)


def reordered(u, dt, make_solve):
    @math.jit_compile_linear
    def operator(x):
        return x - dt * math.laplace(x)

    return math.solve_linear(operator, solve=make_solve(u), y=u.numpy())


def written_by_another(u, k):
    def operator(x):
        return k * x

    def bump():
        nonlocal k
        k = k + 1

    bump()
    return math.solve_linear(operator, u, Solve('CG', x0=u))


def assigned_in_call(u, k):
    def operator(x):
        return k * x

    return math.solve_linear(operator, u, Solve('CG', x0=u), grad_for_f=(k := 2) < 0)


def grad_for_f(u, k):
    @math.jit_compile_linear
    def operator(x):
        return x - k * math.laplace(x)

    return math.solve_linear(operator, u, Solve('CG', x0=u), grad_for_f=True)


DT = 0.1


def set_dt(value):
    global DT
    DT = value


def reads_a_changing_global(u):
    # per call, the operator is traced with the current `DT`; at module level its first matrix is kept
    op = math.jit_compile_linear(lambda x: x - DT * math.laplace(x))
    return math.solve_linear(op, u, Solve('CG', x0=u))
