"""PhiFlow 2 code ported to `from phiml import math`: phiml.math never had `functional_gradient`."""
import numpy as np
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML601:18"],
    # The original raises AttributeError on the installed phiml; the rewrite must compute the
    # gradient the old API documented (tests/test_migrations.py; numpy has no autodiff).
    "migration": {"backends": ["jax", "torch", "tensorflow"], "original_error": "AttributeError"},
}


def loss(x, y):
    return math.l2_loss(x - y)


dloss = math.functional_gradient(loss, "x", get_output=False)


def golden_run():
    x = math.tensor(np.arange(4, dtype=np.float32), spatial("x"))
    return dloss(x, math.ones(spatial(x=4)))


def golden_expected():
    # l2_loss(d) = sum(d ** 2) / 2, so d/dx l2_loss(x - y) = x - y
    return np.arange(4, dtype=np.float32) - 1
