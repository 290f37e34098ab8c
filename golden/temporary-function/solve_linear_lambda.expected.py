"""A jit_compile_linear lambda built on every call: its matrix is traced on every call."""
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:15"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [4, 1],
}


@math.jit_compile_linear(forget_traces=True)
def _diffuse_operator(x, dt):
    return x - dt * math.laplace(x)


def diffuse(u, dt):
    # the operator captures `dt`: it becomes an f_arg of solve_linear
    return math.solve_linear(
        _diffuse_operator,
        u,
        Solve('CG', 1e-5, 1e-5, x0=u),
        dt,
    )


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    for _ in range(4):
        u = diffuse(u, 0.1)
    return u
