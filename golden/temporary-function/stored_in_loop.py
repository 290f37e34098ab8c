"""A `Solve(preprocess_y=lambda ...)` built in a loop and kept: the lambdas all read the loop
variable when the solves run, after the loop (its last value). An explicit `preprocess_y_args`
would hold each iteration's value: not lifted. Executed to pin the original's late binding."""
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:21"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


@math.jit_compile_linear
def times3(x):
    return 3. * x


def scaled_solves(y, scales):
    solves = []
    for scale in scales:
        solves.append(Solve('CG', 1e-5, 1e-5, x0=0 * y, preprocess_y=lambda v: v * scale))
    return [math.solve_linear(times3, y, s) for s in solves]


def golden_run():
    y = math.tensor([3., 6., 9.], spatial('x'))
    return scaled_solves(y, [0.5, 1., 2.])
