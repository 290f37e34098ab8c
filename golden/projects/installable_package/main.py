"""`kernels.steps.repeat` is public in a package that setup.py makes installable: the calls here are not
all its calls, so declaring `n` static is an unsafe fix, whose note says why (with unsafe fixes on, the
rewrite runs where the original raised)."""
import jax.numpy as jnp

from kernels.steps import repeat

GOLDEN = {
    "findings": ["kernels/steps.py:PML204:7"],
    "unsafe_fixes": True,
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerIntegerConversionError"},
    "messages": {"kernels/steps.py:PML204:7": "`kernels.steps` is in a package that setup.py makes installable"},
}


def golden_run():
    x = jnp.arange(3.)
    return [repeat(x, 2), repeat(x, 3)]
