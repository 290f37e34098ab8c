"""`f` is a function and `x` is computed: no source says what to draw, so nothing is claimed."""
import jax
import jax.numpy as jnp

SYNTHESIS = {"verdicts": {"apply_positive": "unsynthesizable"},
             "reasons": {"apply_positive": "argument `f` of unknown type"}}


@jax.jit
def apply_positive(f, x):
    if x > 0:
        y = f(x)
    else:
        y = x
    return y


def main(data):
    return apply_positive(jnp.sin, data.mean())
