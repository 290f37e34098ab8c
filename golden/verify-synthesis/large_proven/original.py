"""A correct merge at a size drawing cannot build: the program centres a 4096x4096 matrix. The
branches are `x` and `x` minus its column means: one shape and dtype at every size, which the rule
cannot prove from the source (its fix is unsafe). Abstract evaluation proves it without building
the matrix; with draws cut short by the budget, the proof alone writes the fix (`--verify auto`)."""
import jax
import jax.numpy as jnp

SYNTHESIS = {"verdicts": {"centre": "proven"}, "proofs": {"centre": "shapes agree on 4 signatures"}}


@jax.jit
def centre(x):
    if jnp.any(x > 0):
        y = x - x.mean(axis=0)
    else:
        y = x
    return y


def main():
    return centre(jnp.zeros((4096, 4096)))
