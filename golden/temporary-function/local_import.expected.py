"""Operators that read a module imported inside the enclosing function: the import moves with them.

A module is never passed as an `f_arg` (PhiML would look for a backend for it: `NoBackendFound`). Where the
module level imports the same thing, the lifted function reads that; otherwise the lifted function repeats
the import in its own body, which keeps it lazy (local imports often break an import cycle)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML101:22", "PML101:29"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


@math.jit_compile_linear
def _implicit_operator(x):
    return 2 * x - math.laplace(x)


def implicit(u):
    from phiml import math

    return math.solve_linear(_implicit_operator, u, math.Solve('CG', 1e-5, 1e-5, x0=u))


def _scaled_operator(x, k):
    from phiml.math import laplace as lap
    return k * x - lap(x)


def scaled(u, k):
    from phiml.math import laplace as lap
    from phiml import math as m

    return m.solve_linear(_scaled_operator, u, m.Solve('CG', 1e-5, 1e-5, x0=u), k)


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    return [implicit(u), scaled(u, 3.)]
