"""PhiFlow 2.0-2.2 `Solve(relative_tolerance=..., absolute_tolerance=...)`: TypeError on phiml 1.16."""
import numpy as np
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML605:21", "PML605:22"],
    "migration": {"backends": ["numpy", "jax", "torch", "tensorflow"], "original_error": "TypeError"},
}


@math.jit_compile_linear
def laplace_plus_identity(x):
    return 3.0 * x - math.shift(x, (-1,), padding=0, stack_dim=None)[0] - math.shift(x, (1,), padding=0, stack_dim=None)[0]


def golden_run():
    y = math.tensor(np.array([1.0, 2.0, 0.0, -1.0, 0.5], dtype=np.float32), spatial("x"))
    solve = math.Solve(
        "CG",
        rel_tol=1e-6,
        abs_tol=1e-6,
        max_iterations=200,
        x0=0 * y,
    )
    return math.solve_linear(laplace_plus_identity, y, solve)


def golden_expected():
    matrix = 3 * np.eye(5) - np.eye(5, k=1) - np.eye(5, k=-1)
    return np.linalg.solve(matrix, np.array([1.0, 2.0, 0.0, -1.0, 0.5]))
