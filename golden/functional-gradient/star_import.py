"""`from phi.flow import *` in PhiFlow 3 binds `math` to phiml.math, where `functional_gradient` is
gone; the bare `functional_gradient` of the star import still works (an alias of `gradient`)."""
import numpy as np
from phi.flow import *

GOLDEN = {
    "findings": ["PML601:16", "PML601:17"],
    "migration": {"backends": ["jax", "torch"], "original_error": "AttributeError"},
}


def loss(x):
    return math.sum(x ** 3) / 3


alias_gradient = functional_gradient(loss, "x", get_output=False)
math_gradient = math.functional_gradient(loss, "x", get_output=False)


def golden_run():
    x = math.tensor(np.array([1.0, 2.0, -1.0], dtype=np.float32), spatial("x"))
    return alias_gradient(x), math_gradient(x)


def golden_expected():
    x = np.array([1.0, 2.0, -1.0], dtype=np.float32)
    return x ** 2, x ** 2
