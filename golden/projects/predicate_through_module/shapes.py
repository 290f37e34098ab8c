"""A predicate about types: a Python bool whatever it is given, a tracer included."""
import numpy as np


def is_scalar(x):
    return isinstance(x, (int, float)) or np.isscalar(x)
