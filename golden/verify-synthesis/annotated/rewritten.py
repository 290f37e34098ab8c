"""No call site: the annotations say what to draw. jaxtyping's `"n"` gives both arrays one size,
`float` a Python number (static when jitted, as a caller's literal would be). The helper is not
decorated: verify jits the rewrite itself. Both merges are right: verified."""
from __future__ import annotations

from typing import TYPE_CHECKING

import jax.numpy as jnp

if TYPE_CHECKING:
    from jaxtyping import Array, Float

SYNTHESIS = {"verdicts": {"blend": "verified", "clipped": "verified"}}


def blend(a: Float[Array, "n"], b: Float[Array, "n"], w: float):
    out = a * w + b * (1 - w) if w > 0.5 else b
    return out


def clipped(a: Float[Array, "n"], limit: float):
    out = jnp.where(jnp.abs(a).max() > limit, jnp.clip(a, -limit, limit), a)
    return out
