"""Temporary functions that must stay where they are: each finding says why."""
from phiml import math
from phiml.math import Solve

GOLDEN = {
    "findings": ["PML101:13", "PML101:24", "PML101:31", "PML101:39", "PML101:44", "PML101:52"],
}


def late_binding(u, a):
    f = lambda x: a * x
    a = a + 1  # the closure reads the new value
    return math.solve_linear(f, u, Solve('CG'))


def nonlocal_write(u):
    count = 0

    def operator(x):
        nonlocal count
        count += 1
        return 2 * x

    return math.solve_linear(operator, u, Solve('CG'))


def recursion(u):
    def operator(x, depth=0):
        return x if depth else operator(x, 1)

    return math.solve_linear(operator, u, Solve('CG'))


def used_twice(u):
    def operator(x):
        return 2 * x

    operator(u)
    return math.solve_linear(operator, u, Solve('CG'))


def no_channel(x0, target):
    # minimize cannot pass `target` to a module-level objective
    return math.minimize(lambda x: math.l2_loss(x - target), Solve('L-BFGS-B', x0=x0))


class Model:
    def __init__(self, scale):
        self.scale = scale

    def solve(self, u):
        return math.solve_linear(lambda x: self.scale * x, u, Solve('CG'))
