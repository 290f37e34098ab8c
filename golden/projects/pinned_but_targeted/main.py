"""requirements.txt pins phiflow==2.1.4, but pyproject.toml says the project targets PhiFlow 3.4
(`target-versions`, as Ruff's target-version): the migrations are made."""
from phi import math

from losses import finite, loss

GOLDEN = {
    "findings": ["losses.py:PML602:10", "main.py:PML601:19"],
    "world": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


def golden_run():
    x = math.tensor([1., -2., 3.], math.spatial('x'))
    return [loss(x), math.all(finite(x))]


grad = math.functional_gradient(loss, wrt='x', get_output=False)
