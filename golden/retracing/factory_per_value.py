"""A factory that creates a jit function (a linear operator, a step) called in the loop: each call
makes a new one with an empty trace cache, so every iteration traces again. Reported at the factory
call with the stable key (one per distinct value in a dict, or the value as an argument); nothing
lifts it (PML101 and PML102 see no temporary function, PML302 no jit application in the loop)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:31", "PML401:37"],
    "backends": ["numpy", "jax"],
    "traces": [6, 6],
    "messages": {"PML401:31": "build it once per distinct `alpha`", "PML401:37": "build it once, before the loop"},
}


def implicit_operator(alpha):
    @math.jit_compile_linear
    def operator(v):
        return v - alpha * math.laplace(v)
    return operator


def make_update(gain):
    def update(v):
        return v + gain * math.sin(v)
    return math.jit_compile(update)


def smooth(y, alphas):
    for alpha in alphas:
        y = math.solve_linear(implicit_operator(alpha), y, math.Solve('CG', 1e-6, 1e-6, x0=y))
    return y


def advance(y, steps):
    for _ in range(steps):
        step = make_update(0.25)
        y = step(y)
    return y


def golden_run():
    y = math.tensor([0.0, 1.0, 3.0, 1.0, 0.0], spatial('x'))
    return smooth(y, [0.1, 0.2, 0.3]), advance(y, 3)
