"""Obstacles built per sample by callables looked up in a table (`SHAPES[kind](...)`): whether those are
classes, and what PhiML would key on, the source does not say, so that call is left alone. Reading the
callee used to stop the whole file with an internal error, losing the finding of the second loop: an
auxiliary argument new on every iteration, which gets `forget_traces=True`."""
from dataclasses import dataclass

from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:43"],
    "backends": ["numpy", "jax"],
}


@dataclass(frozen=True)
class Disc:
    radius: float


@dataclass(frozen=True)
class Ring:
    radius: float


SHAPES = {"disc": Disc, "ring": Ring}


@math.jit_compile(auxiliary_args='k', forget_traces=True)
def step(v, obstacles, k):
    damping = sum(o.radius for o in obstacles)
    return v * (1 - 0.1 * damping) * k + 0.1 * math.sin(v)


def simulate(v, samples):
    for sample in samples:
        v = step(v, [SHAPES[kind](r) for kind, r in sample], 1.0)
    return v


def relax(v, steps):
    for i in range(steps):
        v = step(v, (), 1.0 - 0.1 * i)
    return v


def golden_run():
    samples = [[("disc", 0.5)], [("disc", 0.5), ("ring", 0.25)], [("ring", 0.5)]]
    v = math.tensor([0.2, 0.4, 0.8], spatial('x'))
    return simulate(v, samples), relax(v, 4)
