"""`phi.math.functional_gradient` still works (phiflow 3.4 keeps `functional_gradient = gradient`):
renamed to `gradient`, and the deprecated `wrt` by position becomes the parameter name. Both run."""
import numpy as np
from phi import math
from phi.math import spatial

GOLDEN = {
    "findings": ["PML601:19", "PML601:19"],
    # The original still runs (a deprecated alias): both must give the documented gradient.
    "migration": {"backends": ["jax", "torch", "tensorflow"], "original_error": None},
}


def loss(x, y):
    return math.l2_loss(x * y), x * y


# PhiFlow 2.0-2.2 style: wrt by position, gradients returned in a sequence
loss_and_gradient = math.functional_gradient(loss, wrt=(0,))


def golden_run():
    x = math.tensor(np.arange(3, dtype=np.float32), spatial("x"))
    y = math.tensor(np.array([2, 3, 4], dtype=np.float32), spatial("x"))
    (value, product), (dx,) = loss_and_gradient(x, y)
    return value, product, dx


def golden_expected():
    x = np.arange(3, dtype=np.float32)
    y = np.array([2, 3, 4], dtype=np.float32)
    # l2_loss(x * y) = sum((x * y) ** 2) / 2, so d/dx = (x * y) * y
    return float(np.sum((x * y) ** 2) / 2), x * y, x * y * y
