"""An objective lambda passed to math.minimize on every call; it captures nothing, so it is lifted.
Not executed: PhiML's numpy backend (the eager reference) has no gradients for L-BFGS-B."""
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:12"],
}


def _fit_loss(x):
    return math.l2_loss(x - 2.)


def fit(x0):
    return math.minimize(_fit_loss, Solve('L-BFGS-B', 0, 1e-5, x0=x0))


def golden_run():
    x0 = math.tensor([0., 1., 5.], spatial('x'))
    return [fit(x0 * i) for i in range(1, 3)]
