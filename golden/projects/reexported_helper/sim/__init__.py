"""A package that re-exports its helpers: callers import `sim.clip_step`, the def is in sim/physics.py."""
from .physics import clip_step
