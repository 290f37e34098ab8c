"""Temporary functions that must stay where they are: each finding says why."""
from phiml import math
from phiml.math import Solve

GOLDEN = {
    "findings": ["PML101:18", "PML101:25", "PML101:33", "PML101:38", "PML101:46"],
}


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
