"""Predicates about types: each returns a Python bool whatever it is given, a tracer included."""
import numpy as np


def scalar_like(x):
    return isinstance(x, (int, float)) or np.isscalar(x)


def has_rows(x):
    if isinstance(x, (list, tuple)):
        return len(x) > 0
    return x.ndim >= 1



def doubled(x):
    return x * 2
