"""Must not change (reported): a PhiML loop over a tensor count that nothing in the program bounds.

A masked loop would need a bound; one made up (100) would put that many copies of the body into every trace
and cut a larger count short. The finding says so and points at `auxiliary_args` for a Python count."""
from phiml import math

GOLDEN = {
    "findings": ["PML202:15"],
    "unsafe_fixes": True,
}


@math.jit_compile
def repeat(x, n):
    for _ in range(n.max):
        x = x * 2
    return x
