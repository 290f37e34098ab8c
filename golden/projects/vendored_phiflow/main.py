"""The project ships its own `phi` (phi/, an old PhiFlow): `math.functional_gradient`, `math.isfinite`
and `math.divide_no_nan` are that copy's functions, which PhiFlow 3's names would break (its
`math.gradient` is a spatial gradient). Reported as info, never rewritten; the note names the copy."""
import numpy as np

from phi import math

GOLDEN = {
    "findings": ["main.py:PML601:19", "main.py:PML602:20", "main.py:PML602:21"],
    "world": True,
    "framework": "jax",
    "backends": ["jax"],
    "messages": {"main.py:PML601:19": "the project ships its own `phi` (phi/, version 1.5.1)"},
}


def golden_run():
    x = np.array([1.0, 2.0, 4.0])
    slope = math.functional_gradient(lambda v: v * v)(3.0)
    finite = math.isfinite(x)
    ratio = math.divide_no_nan(x, np.array([1.0, 0.0, 2.0]))
    return [np.array(slope), finite, ratio, math.gradient(x)]
