"""A package whose own `math` re-exports PhiML's (`from phiml.math import *` in sim/math/__init__.py, as
PhiFlow's `phi/math` does), imported by absolute name (`from sim import math`) and relatively (`from
..math import batch`): its names are PhiML's. The jit transform is found through the re-export, the
Shape's truth (`(batch(u) & batch(v)).without('b')`) is a Python value while tracing and its `if` stays,
and the `if` on a tensor becomes a `math.where` spelled through the package's own `math`.

Analysed alone, sim/physics/fluid.py names nothing of PhiML's: no jit function, no finding.
"""
from phiml import math
from phiml.math import batch, spatial

from sim.physics.fluid import damp

GOLDEN = {
    "findings": ["sim/physics/fluid.py:PML201:13"],
    "unsafe_fixes": True,
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


def golden_run():
    u = math.tensor([1., 2.], spatial('x'))
    v = math.tensor([[.1, .2], [.3, .4]], batch('c'), spatial('x'))
    return [damp(u, v), damp(u * 0.25, v), damp(u, v)]
