"""PhiML: a method jit-compiled with `jit_compile(self._step)` calls a method that records the energy
on `self`. Under jit the record is made once per trace: a tracer on jax, a symbolic tensor on
tensorflow, and on torch the first call's value, never updated."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML501:25"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "UnexpectedTracerError", "torch": "differs", "tensorflow": "TypeError"},
}


class Smoother:
    def __init__(self):
        self.energy = None
        self.step = math.jit_compile(self._step)

    def _step(self, u):
        u = 0.5 * (u + math.mean(u))
        self._record(u)
        return u

    def _record(self, u):
        self.energy = math.sum(u ** 2)


def golden_run():
    s = Smoother()
    u = math.tensor([0., 1., 4., 1., 0.], spatial('x'))
    energies = []
    for _ in range(3):
        u = s.step(u)
        energies.append(s.energy + 0)
    return u, energies
