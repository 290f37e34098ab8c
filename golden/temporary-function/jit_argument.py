"""A nested def passed as an argument of a jit-compiled function: a new cache key per call."""
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:22"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": {"jax": [6, 2], "torch": [9, 3], "tensorflow": [6, 2]},
}


@math.jit_compile
def step(y, f):
    return math.solve_linear(f, y, Solve('CG', 1e-5, 1e-5, x0=0 * y))


def solve_times3(y):
    @math.jit_compile_linear
    def times3(x):
        return 3. * x

    return step(y, times3)


def golden_run():
    y = math.tensor([3., 6., 9.], spatial('x'))
    return [solve_times3(y * i) for i in range(1, 4)]
