"""PhiFlow-style star import: names resolve through `from phiml import *`."""
import numpy as np
from phiml import *

GOLDEN = {
    "findings": ["PML304:20"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax"],
    "traces": [1, 1],
}


@jit_compile
def norm(u):
    return math.sqrt(math.sum(u ** 2, "x"))


def golden_run():
    u = math.tensor(np.arange(8, dtype=np.float32).reshape(2, 4), batch("b"), spatial("x"))
    return norm(u)
