"""requirements.txt pins phiflow==2.1.4: PhiFlow 3's names (`math.gradient` as the function gradient from
2.5, `math.is_finite` from 2.2) are not there. The legacy names are reported as info, never rewritten;
the note names the pin."""
from phi import math

from losses import finite, loss

GOLDEN = {
    "findings": ["losses.py:PML602:10", "main.py:PML601:21"],
    "world": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "messages": {"main.py:PML601:21": "requirements.txt:2 pins phiflow==2.1.4"},
}


def golden_run():
    x = math.tensor([1., -2., 3.], math.spatial('x'))
    return [loss(x), math.all(finite(x))]


grad = math.functional_gradient(loss, wrt='x', get_output=False)
