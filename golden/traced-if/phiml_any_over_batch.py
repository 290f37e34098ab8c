"""`(x > 1).any` reduces every dimension, batch ones included: one branch for the whole batch. `math.any(x > 1)`
alone keeps the batch dimension and would select per batch item (different values whenever the items
disagree), so the rewrite reduces over every dimension: `math.any(..., dim=math.shape)`."""
from phiml import math
from phiml.math import batch, spatial

GOLDEN = {
    "findings": ["PML201:16"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile
def limit(x):
    if (x > 1).any:
        return x * 0.5
    return -x


def golden_run():
    mixed = math.tensor([[0.5, 2.0], [0.1, 0.2]], batch('b'), spatial('s'))
    return [limit(mixed), limit(mixed * 0.1), limit(mixed * 0.1)]
