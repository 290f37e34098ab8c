"""The same `vec_abs` read through two `math` modules: PhiFlow 3's `from phi.flow import *` binds
`math` to `phiml.math`, which has no `vec_abs` (AttributeError), while `phi.math` keeps it as an
alias of `vec_length`. The two findings differ, and each message says which module it reads."""
import numpy as np
from phi.flow import *
from phi import math as phi_math

GOLDEN = {
    "findings": ["PML602:20", "PML602:21"],
    "migration": {"backends": ["numpy", "jax"], "original_error": "AttributeError"},
    "messages": {"PML602:20": "this `math` is `phiml.math`, which never had this PhiFlow 2 name",
                 "PML602:21": "is only a compatibility alias in `phi.math`"},
}


def golden_run():
    v = math.tensor(np.array([[3.0, 4.0], [0.0, 1.0]], dtype=np.float32), spatial("x"), channel(vector="x,y"))
    w = phi_math.tensor(np.array([[6.0, 8.0]], dtype=np.float32), spatial("x"), channel(vector="x,y"))
    return (
        math.vec_length(v),
        phi_math.vec_length(w),
    )


def golden_expected():
    return np.array([5.0, 1.0]), np.array([10.0])
