"""Must not change: PhiFlow's `if obstacles:` (phi/physics/fluid.py) on a parameter declared a tuple.

`obstacles` holds a Python tuple of tensors (traced by `jit_compile` as a tree of tensors); its truth
is its length, known while tracing. It used to be read as a tracer and "fixed" safely into
`math.where(obstacles, ...)`, which cannot take a tuple.
"""
from typing import Tuple

from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


@math.jit_compile
def bounded(velocity, obstacles: tuple = (), walls: Tuple[math.Tensor, ...] = ()):
    if obstacles:
        velocity = velocity * obstacles[0]
    if not walls:
        return velocity
    return velocity - walls[0]


def golden_run():
    v = math.tensor([1., 2., 3.], spatial('x'))
    mask = math.tensor([1., 0., 1.], spatial('x'))
    return [bounded(v), bounded(v, (mask,)), bounded(v * 2, (mask,), (mask,)), bounded(v, (), (mask,))]
