"""A jit function built once by a factory and called per sample with a list of obstacle objects
built from the sample: PhiML keys its traces on the list's structure and the objects' non-tensor
values, so samples that differ trace again. The keys may come back (same obstacle count and
values), so this is reported at info level with the stable key, and left alone."""
from dataclasses import dataclass

from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:34"],
    "backends": ["numpy", "jax"],
    "messages": {"PML401:34": "stack the objects along an instance dimension"},
}


@dataclass(frozen=True)
class Disc:
    center: float
    radius: float


def make_step(dt):
    def step(v, discs):
        damping = sum(d.radius for d in discs)
        return v * (1 - dt * damping) + dt * math.sin(v)
    return math.jit_compile(step)


def simulate(v, samples):
    step = make_step(0.1)
    for sample in samples:
        discs = [Disc(c, r) for c, r in sample]
        v = step(v, discs)
    return v


def golden_run():
    samples = [[(0.0, 0.5)], [(0.0, 0.5), (1.0, 0.25)], [(0.5, 0.5)]]
    return simulate(math.tensor([0.2, 0.4, 0.8], spatial('x')), samples)
