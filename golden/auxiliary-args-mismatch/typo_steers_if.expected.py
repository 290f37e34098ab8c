"""A misspelt `auxiliary_args` entry whose parameter steers an `if`: renaming it is the only fix that keeps
the author's meaning (safe), and no other rule rewrites that `if` in the same run (one consistent view)."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML205:13"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs"},
}


@math.jit_compile(auxiliary_args='normalize')
def scale(x, normalize):
    if normalize:
        x = x / math.max(x)
    return x * 2


def golden_run():
    x = math.tensor([1., 4.], spatial('x'))
    return [scale(x, True), scale(x, False)]
