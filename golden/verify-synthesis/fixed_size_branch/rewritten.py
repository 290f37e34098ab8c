"""A branch that only works for length-2 vectors: `lax.cond` traces both branches, so for any other
length the rewrite fails where the original (taking the other branch) does not. Every call passes
a length-2 vector: the difference is reported as found beyond the calls' sizes."""
import jax
import jax.numpy as jnp

SYNTHESIS = {"verdicts": {"rotate_positive": "falsified"}, "reasons": {"rotate_positive": "the rewrite fails"},
             "beyond_calls": {"rotate_positive": True}}

ROTATION = jnp.array([[0.0, -1.0], [1.0, 0.0]])


@jax.jit
def rotate_positive(v):
    out = jax.lax.cond(v.sum() > 0, lambda: ROTATION @ v, lambda: v)
    return out


def main():
    return rotate_positive(jnp.array([1.0, 2.0])), rotate_positive(jnp.array([-1.0, 0.5]))
