"""A leaky ramp whose rewrite drops the factor of the negative branch: the program only calls it
with a positive value, so only a negative input shows the difference."""
import jax
import jax.numpy as jnp

SYNTHESIS = {"verdicts": {"leaky": "falsified"}, "reasons": {"leaky": "values differ"}, "inputs": {"leaky": "x=float32[] -"}}


@jax.jit
def leaky(x):
    y = jnp.where(x < 0, 0.1, x)
    return y


def main():
    return leaky(jnp.float32(0.3))
