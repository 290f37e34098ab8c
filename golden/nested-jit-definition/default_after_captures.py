"""Reported, not lifted: the nested def has a parameter with a default value, and a captured value cannot
become a parameter after it (`def f(u, k=1, rate)` is not Python); the finding says so."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML102:14"],
    "unsafe_fixes": True,
}


def relax(u, rate):
    @math.jit_compile(auxiliary_args='k')
    def step(u, k=1):
        return u + k * rate * math.laplace(u)

    return step(u, k=2)


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    return [relax(u * i, 0.1) for i in range(1, 3)]
