"""A nested @jit_compile_linear def used as the operator of an implicit step."""
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:18"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [3, 1],
}


@math.jit_compile_linear(forget_traces=True)
def _implicit_step_operator(x, dt, nu):
    # both captured values become f_args
    return x - dt * nu * math.laplace(x)


def implicit_step(u, dt, nu):
    return math.solve_linear(_implicit_step_operator, u, Solve('CG', 1e-5, 1e-5, x0=u), dt, nu)


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    out = []
    for _ in range(3):
        u = implicit_step(u, 0.1, 0.5)
        out.append(u)
    return out
