"""A preprocess_y lambda inside a Solve built on every call: lifted, the captured scale passed along."""
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:17"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


@math.jit_compile_linear
def times3(x):
    return 3. * x


def _scaled_solve_preprocess_y(v, scale):
    return v * scale


def scaled_solve(y, scale):
    solve = Solve('CG', 1e-5, 1e-5, x0=0 * y, preprocess_y=_scaled_solve_preprocess_y, preprocess_y_args=(scale,))
    return math.solve_linear(times3, y, solve)


def golden_run():
    y = math.tensor([3., 6., 9.], spatial('x'))
    return [scaled_solve(y, s) for s in (0.5, 1., 2.)]
