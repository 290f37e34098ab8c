"""One branch returns a length-1 array: under `where` it broadcasts to `x`'s shape, so whenever
that branch is taken the shape changes. The program's call always takes the other branch."""
import jax
import jax.numpy as jnp

SYNTHESIS = {"verdicts": {"peak": "falsified"}, "reasons": {"peak": "shape [1] != [2]"}, "inputs": {"peak": "x=float32[2]"},
             "proofs": {"peak": "at x=float32[2]: branch True gives float32[2], branch False gives float32[1]"}}


@jax.jit
def peak(x):
    if x.max() > 1:
        y = x / x.max()
    else:
        y = jnp.ones(1)
    return y


def main():
    return peak(jnp.array([2.0, 4.0]))
