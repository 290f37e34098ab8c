"""Fluid physics written against the package's own `math`: by absolute name and relatively, as
PhiFlow's `phi/physics/fluid.py` imports `phi.math`. `batch` is PhiML's, so the first `if` tests a
Shape (a Python value while tracing) and stays; the second tests a tensor, and becomes a selection."""
from sim import math
from sim.math import jit_compile
from ..math import batch


@jit_compile
def damp(u, v):
    if (batch(u) & batch(v)).without('b'):  # batch dimensions besides `b`: a Shape, known while tracing
        v = math.mean(v, batch(v).without('b'))
    u = math.where(math.any(u > 1, dim=math.shape), u * 0.5, u)
    return u + v
