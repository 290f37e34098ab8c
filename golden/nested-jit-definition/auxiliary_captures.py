"""Unsafe fix: a nested jit_compile def reading an int of the outer function; the int becomes an
auxiliary argument (static, one trace per distinct value), as it was baked into each trace before."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML102:16"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [3, 1],
}


def smooth(u, passes):
    @math.jit_compile
    def step(u):
        for _ in range(passes):  # passes must stay a Python int
            u = u + 0.1 * math.laplace(u)
        return u

    return step(u)


def golden_run():
    u = math.tensor([0., 1., 3., 1., 0., 2.], spatial('x'))
    return [smooth(u * i, 2) for i in range(1, 4)]
