"""A captured name assigned again between the lambda and the solve: `solve_linear` runs the lambda
during the call, so the closure reads the new value, and the value passed at the call is that one."""
from phiml import math
from phiml.math import Solve, spatial

GOLDEN = {
    "findings": ["PML101:15"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


def rebound(u, a):
    f = lambda x: a * x
    a = a + 1  # read by the solve below, in both forms
    return math.solve_linear(f, u, Solve('CG', 1e-5, 1e-5, x0=u))


def golden_run():
    u = math.tensor([2., 4., 6.], spatial('x'))
    return [rebound(u, 1.), rebound(u, 3.)]
