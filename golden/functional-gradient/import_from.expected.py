"""`from phiml.math import functional_gradient` fails at import: the import brings `gradient` under
the old name instead; positions in `wrt` become parameter names (a list stays a list: a tuple of
gradients, as before)."""
import numpy as np
from phiml.math import gradient as functional_gradient, jacobian as jac, spatial, sum as total, tensor

GOLDEN = {
    "findings": ["PML601:5", "PML601:17", "PML601:18"],
    "migration": {"backends": ["jax", "torch"], "original_error": "ImportError"},
}


def energy(position, stiffness):
    return total(0.5 * stiffness * position ** 2)


both_gradients = functional_gradient(energy, ['position', 'stiffness'], get_output=False)
force = jac(lambda p, s: total(0.5 * s * p ** 2), 'p', get_output=False)


def golden_run():
    x = tensor(np.array([1.0, -2.0, 3.0], dtype=np.float32), spatial("x"))
    k = tensor(np.array([2.0, 2.0, 0.5], dtype=np.float32), spatial("x"))
    return both_gradients(x, k), force(x, k)


def golden_expected():
    x = np.array([1.0, -2.0, 3.0], dtype=np.float32)
    k = np.array([2.0, 2.0, 0.5], dtype=np.float32)
    # d/dx of sum(0.5 k x^2) = k x; d/dk = 0.5 x^2
    return (k * x, 0.5 * x ** 2), k * x
