"""Physics helpers. Nothing here is jitted: the jitted step in main.py calls `limiter` with a traced value."""
from phiml import math


def limiter(v, strength):
    if (v > 0).all:
        return v * strength
    return v
