"""Reported without a fix: the nested def reads values of the outer function."""
import jax
from phiml import math

GOLDEN = {"findings": ["PML102:10", "PML102:18"]}


def scaled(x, scale):
    @jax.jit
    def f(y):
        return y * scale

    return f(x)


def repeated(u, n):
    @math.jit_compile
    def step(u):
        for _ in range(n):  # n must stay a Python int: it would have to be an auxiliary arg
            u = u * 0.5
        return u

    return step(u)
