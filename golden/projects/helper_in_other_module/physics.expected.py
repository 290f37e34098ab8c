"""Physics helpers. Nothing here is jitted: the jitted step in main.py calls `limiter` with a traced value."""
from phiml import math


def limiter(v, strength):
    return math.where(math.all(v > 0, dim=math.shape), v * strength, v)
