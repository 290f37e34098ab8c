"""A branch that keeps a Python number while the other computes an array: `where` would broadcast the number.

Eagerly the function returns `0.0` or an array; a selection always returns an array of the data's shape.
Unsafe, so it stays as written unless unsafe fixes are asked for."""
from phiml import math

GOLDEN = {
    "findings": ["PML201:15"],
}


@math.jit_compile
def excess(x):
    total = 0.
    if (x > 1).any:
        total = x - 1
    return total
