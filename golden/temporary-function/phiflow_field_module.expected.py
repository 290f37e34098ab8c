"""The solver API spelled through PhiFlow's `phi.field`, which re-exports phiml.math's own functions
(`from phiml.math import ...` in phi/field/__init__.py): `field.jit_compile_linear` and
`field.solve_linear` are `math.jit_compile_linear` and `math.solve_linear`. A parameter that happens
to be called `field` is the caller's object, not PhiFlow's module."""
from phi import field
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML101:22"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [3, 1],
}


@field.jit_compile_linear(forget_traces=True)
def _implicit_step_operator(x, dt, nu):
    # both captured values become f_args
    return x - dt * nu * math.laplace(x)


def implicit_step(u, dt, nu):
    return field.solve_linear(_implicit_step_operator, u, math.Solve('CG', 1e-5, 1e-5, x0=u), dt, nu)


def relax(field, u):
    # `field` is a parameter: its `solve_linear` is whatever the caller passes
    return field.solve_linear(lambda x: 2 * x, u)


class HalfSolver:
    @staticmethod
    def solve_linear(f, y):
        return y / f(1.0)


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    out = []
    for _ in range(3):
        u = implicit_step(u, 0.1, 0.5)
        out.append(u)
    out.append(relax(HalfSolver, u))
    return out
