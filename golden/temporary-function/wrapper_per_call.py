"""`math.jit_compile_linear(fn)` of a module-level function, written at the solve: a new operator on
every call, its matrix traced each time. Built once at module level, after the function it wraps."""
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:15"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [4, 1],
}


def implicit_step(u):
    # `sharpen` is defined below: the operator is built right after it
    return math.solve_linear(math.jit_compile_linear(sharpen), u, Solve('CG', 1e-5, 1e-5, x0=u))


def sharpen(x):
    return x - 0.1 * math.laplace(x)


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    out = []
    for _ in range(4):
        u = implicit_step(u)
        out.append(u)
    return out
