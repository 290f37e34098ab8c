"""Both spellings passed, or `f_args` after `*args`: reported, not rewritten."""
from phiml import math

GOLDEN = {"findings": ["PML605:7", "PML605:8"]}


both = math.Solve("CG", rel_tol=1e-5, relative_tolerance=1e-5)
starred = math.solve_linear(abs, 1.0, both, *(), f_args=(1,))
