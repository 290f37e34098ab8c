"""Two jit decorators on one function; the configured one is kept."""
import numpy as np
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML303:15"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": {"jax": [2, 2], "torch": [2, 2], "tensorflow": [3, 2]},
    # The bare outer jit makes the auxiliary `n` traced: range(n) fails on jax, is baked in on torch.
    "original_broken": {"jax": "TracerIntegerConversionError", "torch": "differs"},
}


@math.jit_compile
@math.jit_compile(auxiliary_args="n")
def smooth(x, n):
    for _ in range(n):
        x = 0.5 * (x + math.shift(x, (1,), padding=0)[0])
    return x


def golden_run():
    x = math.tensor(np.arange(6, dtype=np.float32), spatial("x"))
    return [smooth(x, 2), smooth(x, 3)]
