"""A public function of an installable package, traced here only through a jit-compiled caller, may run
eagerly elsewhere: what the project's callers show is not all its calls (sim/physics.py). `damp`'s `if`
on a tracer raises under `step`'s trace on jax; selecting with `math.where` instead is unsafe there, since
eager callers outside the project could pass it anything."""
from phiml import math
from phiml.math import spatial

from sim import physics
from sim.physics import _private_implicit

GOLDEN = {
    "findings": ["sim/physics.py:PML101:14", "sim/physics.py:PML201:25"],
    "unsafe_fixes": True,
    "alone_missing": ["sim/physics.py:PML201:25"],
    "original_broken": {"jax": "AssertionError", "torch": "AssertionError", "tensorflow": "AssertionError"},
    "messages": {"sim/physics.py:PML201:25": "callers outside the project may run it eagerly"},
    "alone_also": ["sim/physics.py:PML101:21"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


@math.jit_compile
def step(u):
    return physics.damp(u) + physics.implicit(u, 0.1) + _private_implicit(u, 0.2)


def golden_run():
    u = math.tensor([1., 2., 0.5, 3.], spatial('x'))
    return [step(u), step(u * 0.1), physics.implicit(u, 0.3)]
