"""Custom gradients built per call where no automatic fix is safe: each finding says what the
module-level form is. A lambda gradient that captures a limit, a module function that builds and
returns a `math.custom_gradient` (a factory, called per call), and the same factory given only
module-level functions and constants."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML101:19", "PML101:36", "PML101:37"],
    "messages": {"PML101:19": "auxiliary_args='lim')`, with `lim` as parameters of `_clipped_forward`",
                 "PML101:37": "build it once at module level: `_solve_with_damped_gradient = with_damped_gradient(_double, 0.5)`"},
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


def clipped(x, lim):
    # the gradient reads `lim`: at module level it becomes an (auxiliary) parameter of the forward
    # function, read back from `params`
    scale = math.custom_gradient(lambda x: 3 * x, lambda params, y, dy: {'x': math.clip(dy * 3, -lim, lim)})
    return scale(x)


def with_damped_gradient(forward, damping):
    def gradient(params, y, dy):
        return {'x': dy * damping}
    return math.custom_gradient(forward, gradient)


def _double(x):
    return 2 * x


def solve(x, k):
    def forward(v):
        return k * v
    g = with_damped_gradient(forward, 0.5)
    h = with_damped_gradient(_double, 0.5)
    return g(x) + h(x)


def golden_run():
    x = math.tensor([1., -2., 0.5], spatial('x'))
    return [clipped(x * i, 1.0) for i in range(1, 3)] + [solve(x, 3.0), solve(x * 2, 4.0)]
