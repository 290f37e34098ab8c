"""PhiFlow's `diffuse.implicit` shape: a nested @jit_compile_linear operator handed to
`solve_linear(op, y=..., solve=...)` by keyword. `y` and `solve` become positional so the captured
values can follow them; the operator's own `scale`, passed by keyword, keeps its binding."""
from phi.field import jit_compile_linear, solve_linear
from phiml import math
from phiml.math import Solve, copy_with, spatial

GOLDEN = {
    "findings": ["PML101:25"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [4, 1],
}


@jit_compile_linear(forget_traces=True)
def _implicit_sharpen(x, boundary, correct, diffusivity, dt, scale=1.):
    lap = math.laplace(x) if boundary is None else math.laplace(x, padding=boundary)
    if correct:
        lap = lap * scale
    return x - diffusivity * dt * lap


def implicit(u, diffusivity, dt, solve=Solve('CG', 1e-5, 1e-5), boundary=None, correct=True):
    if not solve.x0:
        solve = copy_with(solve, x0=u)
    return solve_linear(_implicit_sharpen, u,
                        solve,
                        boundary,
                        correct,
                        diffusivity,
                        dt,
                        scale=1.)


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    out = []
    for _ in range(4):
        u = implicit(u, 0.5, 0.1)
        out.append(u)
    return out
