"""A @jit_compile_linear operator created once and used in a loop that changes a value it captures:
it is traced on its first use only, so every later solve reuses the first value's matrix (on every
backend, eagerly too). The lift would make each value get its own matrix, which changes the results:
reported, not rewritten. Executed to pin that the original runs as it is."""
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:22"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "messages": {"PML101:22": "later iterations reuse that matrix although `dt`"},
}


def sweep(u, dts):
    @math.jit_compile_linear
    def operator(x):
        return x - dt * math.laplace(x)

    out = []
    for dt in dts:
        out.append(math.solve_linear(operator, u, Solve('CG', 1e-5, 1e-5, x0=u)))
    return out


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    return sweep(u, [0.1, 1.0])
