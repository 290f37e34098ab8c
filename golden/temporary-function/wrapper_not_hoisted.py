"""`math.jit_compile_linear(fn)` at the solve, left where it is: options computed at run time, a
function that reads a global assigned again (reported), a function rebound at module level."""
from phiml import math
from phiml.math import Solve

GOLDEN = {"findings": ["PML101:33"]}

SCALE = 2.


def scaled(x):
    return SCALE * x


def configure(value):
    global SCALE
    SCALE = value


def twice(x):
    return 2 * x


def twice(x):  # rebound: which one is meant depends on when the module ran
    return 2. * x


def with_options(u, forget):
    return math.solve_linear(math.jit_compile_linear(twice, forget_traces=forget), u, Solve('CG', x0=u))


def reads_global(u):
    return math.solve_linear(math.jit_compile_linear(scaled), u, Solve('CG', x0=u))


def rebound(u):
    return math.solve_linear(math.jit_compile_linear(twice), u, Solve('CG', x0=u))
