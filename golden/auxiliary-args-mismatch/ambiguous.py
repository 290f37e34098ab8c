"""No single close parameter name: reported with the parameter list, not rewritten."""
from phiml import math

GOLDEN = {
    "findings": ["PML205:9"],
}


@math.jit_compile(auxiliary_args='n')
def step(x, nx: int, ny: int):
    return x * nx * ny
