"""Closures over loop variables, consumed in the call that receives them: the closure reads the
variable when the solver runs it, and so does the value passed explicitly at that call."""
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:20", "PML101:30"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [3, 2],
}


def per_iteration(u, dts):
    out = []
    for dt in dts:
        # a new operator each iteration, traced each time: lifted, `dt` keys its matrix
        @math.jit_compile_linear
        def operator(x):
            return x - dt * math.laplace(x)
        out.append(math.solve_linear(operator, u, Solve('CG', 1e-5, 1e-5, x0=u)))
    return out


def defined_before(u, factors):
    def scaled(x):  # a plain function: it reads `k` on every call, as the lifted one is given it
        return k * x

    out = []
    for k in factors:
        out.append(math.solve_linear(scaled, u, Solve('CG', 1e-5, 1e-5, x0=u)))
    return out


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    return per_iteration(u, [0.1, 0.1, 0.5]) + defined_before(u, [2., 4.])
