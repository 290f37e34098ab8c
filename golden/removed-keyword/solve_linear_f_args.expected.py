"""PhiFlow 2.0-2.2 `solve_linear(f, y, solve, f_args=(a,))`: the installed version hands `f_args` to
`f` as a keyword argument (TypeError here). Passed by position, it is unpacked as before."""
import numpy as np
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML605:23", "PML605:24"],
    "migration": {"backends": ["numpy", "jax", "torch", "tensorflow"], "original_error": "TypeError"},
}


@math.jit_compile_linear(auxiliary_args="scale")
def scaled_shift(x, scale, offset):
    return scale * x + offset * math.shift(x, (1,), padding=0, stack_dim=None)[0]


def golden_run():
    y = math.tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32), spatial("x"))
    solve = math.Solve("CG", 1e-6, 1e-6, x0=0 * y)
    offset = 0.5
    args = [4.0, offset]
    a = math.solve_linear(scaled_shift, y, solve, (4.0, offset))
    b = math.solve_linear(scaled_shift, y, solve, tuple(args))
    return a, b


def golden_expected():
    matrix = 4 * np.eye(3)
    matrix[0, 1] = matrix[1, 2] = 0.5  # shift(x, (1,))[0] is x[i + 1] (zero padding)
    x = np.linalg.solve(matrix, np.array([1.0, 2.0, 3.0]))
    return x, x
