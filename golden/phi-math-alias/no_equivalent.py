"""Names without an equivalent in phiml.math: reported with what to use, never rewritten."""
from phi import math
from phiml import math as pmath

GOLDEN = {"findings": ["PML602:10", "PML602:11", "PML602:12", "PML602:13"]}


def run(x, f):
    return (
        math.transpose(x, (1, 0)),
        pmath.hessian(f, "x"),
        math.gradients(x, [x]),
        math.record_gradients,
    )
