"""Small sources several test modules share."""

# A PhiML jit function with an `if` on a traced value: one PML201 finding, fixed with `math.where`.
TRACED_IF = """\
from phiml import math


@math.jit_compile
def clamp(x):
    if x.mean > 1:
        x = x * 2
    return x
"""

# A jax jit function whose loop of a hundred iterations is unrolled into its trace: one PML206 finding, fixed
# with `lax.scan`.
UNROLLED_LOOP = """\
import jax
import jax.numpy as jnp


@jax.jit
def relax(x):
    for _ in range(100):
        x = 0.5 * (x + jnp.roll(x, 1))
    return x


smooth = relax(jnp.ones(4))
"""
