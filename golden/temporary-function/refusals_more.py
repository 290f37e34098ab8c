"""More temporary functions that must stay: stored functions with late-bound captures, captures a
jit-compiled function cannot receive, and a custom gradient reading a local."""
from phiml import math
from phiml.math import Solve

GOLDEN = {"findings": ["PML101:20", "PML101:26", "PML101:30"]}


@math.jit_compile_linear
def times3(x):
    return 3 * x


@math.jit_compile
def step(y, f):
    return math.solve_linear(f, y, Solve('CG', 1e-5, 1e-5, x0=0 * y))


def stored_then_rebound(y, scale):
    solve = Solve('CG', 1e-5, 1e-5, x0=0 * y, preprocess_y=lambda v: v * scale)
    scale = scale * 2  # the Solve's function would read this value when the solve runs
    return math.solve_linear(times3, y, solve)


def jit_argument_capture(y, k):
    return step(y, math.jit_compile_linear(lambda x: k * x))


def custom_gradient_capture(x, k):
    scale = math.custom_gradient(lambda x: k * x, lambda params, y, dy: {'x': dy * k})
    return scale(x)
