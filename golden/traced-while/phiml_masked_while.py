"""PhiML has no while loop, and nothing in the program bounds this one: reported, not rewritten.

A masked loop would run every iteration of a made-up bound in every trace (each a copy of the body) and cut
a longer loop short; without a bound the program gives, the finding says so instead (issue: a masked loop
is a last resort, with a bound chosen from evidence)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML203:17"],
    "unsafe_fixes": True,
}


@math.jit_compile
def halve(x):
    while (x > 1).any:
        x = x / 2
    return x


def golden_run():
    return [halve(math.tensor([4., 8.], spatial('x'))), halve(math.tensor([64., 2.], spatial('x')))]
