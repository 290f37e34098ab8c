"""Closures over loop variables, consumed in the call that receives them: the closure reads the
variable when the solver runs it, and so does the value passed explicitly at that call."""
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:20", "PML101:30"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [3, 2],
}


# a new operator each iteration, traced each time: lifted, `dt` keys its matrix
@math.jit_compile_linear(forget_traces=True)
def _per_iteration_operator(x, dt):
    return x - dt * math.laplace(x)


def per_iteration(u, dts):
    out = []
    for dt in dts:
        out.append(math.solve_linear(_per_iteration_operator, u, Solve('CG', 1e-5, 1e-5, x0=u), dt))
    return out


def _defined_before_scaled(x, k):  # a plain function: it reads `k` on every call, as the lifted one is given it
    return k * x


def defined_before(u, factors):
    out = []
    for k in factors:
        out.append(math.solve_linear(_defined_before_scaled, u, Solve('CG', 1e-5, 1e-5, x0=u), k))
    return out


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    return per_iteration(u, [0.1, 0.1, 0.5]) + defined_before(u, [2., 4.])
