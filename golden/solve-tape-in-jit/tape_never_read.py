"""Tapes the program never reads, inside and around jit-compiled functions: nothing is recorded that
anyone sees, and the solves run on every backend (measured), so nothing is reported. The last one is
read, and reported."""
import numpy as np
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML505:35"],
    "backends": ["numpy", "jax", "torch"],  # tensorflow records the tape and works too (measured; slow to trace)
}


@math.jit_compile_linear
def operator(x):
    return 2.0 * x


@math.jit_compile
def solve_unnamed(y):
    with math.SolveTape():
        x = math.solve_linear(operator, y, math.Solve('CG', 1e-5, 1e-5, x0=y * 0))
    return x


@math.jit_compile
def solve_named_unused(y):
    with math.SolveTape() as tape:
        x = math.solve_linear(operator, y, math.Solve('CG', 1e-5, 1e-5, x0=y * 0))
    return x


@math.jit_compile
def solve_read(y):
    with math.SolveTape() as tape:
        x = math.solve_linear(operator, y, math.Solve('CG', 1e-5, 1e-5, x0=y * 0))
    return x, tape


def golden_run():
    out = []
    for k in (1.0, 2.0, 3.0):
        y = math.tensor(np.array([2.0, 4.0, 6.0], np.float32) * k, spatial('x'))
        out.append(solve_unnamed(y))
        out.append(solve_named_unused(y))
    return out
