"""`from phi.field import solve_linear, jit_compile_linear`: PhiFlow re-exports phiml.math's
functions, so a temporary operator handed to them is lifted exactly as with `math.solve_linear`.
A local helper that happens to be called `solve_linear` is not the solver."""
from phi.field import jit_compile_linear, solve_linear
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:17"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [4, 1],
}


@jit_compile_linear(forget_traces=True)
def _diffuse_operator(x, dt):
    return x - dt * math.laplace(x)


def diffuse(u, dt):
    return solve_linear(
        _diffuse_operator,
        u,
        Solve('CG', 1e-5, 1e-5, x0=u),
        dt,
    )


def damp(u, rate):
    def solve_linear(f, y):  # the file's own helper: calls `f` once, no solve
        return f(y)

    return solve_linear(lambda x: x * (1 - rate), u)


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    for _ in range(4):
        u = diffuse(u, 0.1)
    return u, damp(u, 0.5)
