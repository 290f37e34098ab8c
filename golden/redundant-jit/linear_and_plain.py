"""jit_compile_linear is not a plain jit, and unrelated jits are left alone."""
import jax
from phiml import math

GOLDEN = {"findings": []}


@math.jit_compile_linear
def laplace(x):
    return math.shift(x, (-1, 1), padding=0)[0] - 2. * x


@math.jit_compile
def solve(y):
    return math.solve_linear(math.jit_compile_linear(laplace), y, math.Solve("CG", 1e-5, 1e-5))


def plain(x):
    return x


fast_plain = jax.jit(plain)
