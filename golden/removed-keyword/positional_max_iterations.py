"""`Solve('CG', 1e-5, 1e-5, 300)`: PhiFlow 2.0-2.2 read 300 as max_iterations, phiml reads it as the
initial guess x0. Old and new code look the same: reported, not rewritten."""
from phiml import math

GOLDEN = {"findings": ["PML605:8"]}


legacy = math.Solve("CG", 1e-5, 1e-5, 300)
explicit = math.Solve("CG", 1e-5, 1e-5, max_iterations=300)
