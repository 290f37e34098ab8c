"""`from phi.flow import *` binds `field` (PhiFlow's module) and `math` (phiml.math): the solver is
found through either. Where a function binds its own `field`, the star import's is not the one read."""
from phi.flow import *

GOLDEN = {
    "findings": ["PML101:14"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [4, 1],
}


@field.jit_compile_linear(forget_traces=True)
def _diffuse_operator(x, dt):
    return x - dt * math.laplace(x)


def diffuse(u, dt):
    return field.solve_linear(_diffuse_operator, u, math.Solve('CG', 1e-5, 1e-5, x0=u), dt)


def scaled(u, factor):
    field = HalfSolver()  # the function's own `field`
    return field.solve_linear(lambda x: factor * x, u)


class HalfSolver:
    def solve_linear(self, f, y):
        return y / f(1.0)


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    for _ in range(4):
        u = diffuse(u, 0.1)
    return u, scaled(u, 2.0)
