"""The branches differ in dtype for int inputs (`x / 2` is float32, `x` stays int32): a `where` merge
promotes both to float32, so for an int `x` whose sum is not positive the dtype changes.
The program's float call and its int call with a positive sum agree; synthesis draws the rest."""
import jax
import jax.numpy as jnp

SYNTHESIS = {"verdicts": {"halve_positive": "falsified"}, "reasons": {"halve_positive": "dtype int32 != float32"},
             "inputs": {"halve_positive": "int32"},
             "proofs": {"halve_positive": "at x=int32[2]: branch True gives float32[2], branch False gives int32[2]"}}


@jax.jit
def halve_positive(x):
    y = jnp.where(x.sum() > 0, x / 2, x)
    return y


def main():
    return halve_positive(jnp.array([2, 4])), halve_positive(jnp.array([1.0, -3.0]))
