"""Must not change: an attribute of a traced dataclass may be a static field: reported as unknown, not rewritten."""
from phiml import math

GOLDEN = {
    "findings": ["PML201:11"],
}


@math.jit_compile
def advance(state, x):
    if state.step > 3:
        return x
    return x * 2
