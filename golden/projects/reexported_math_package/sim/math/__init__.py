"""The package's `math`: PhiML's, re-exported whole (PhiFlow's `phi/math/__init__.py` does the same), and
a compatibility name of its own."""
from phiml.math import *

vec_abs = vec_length
