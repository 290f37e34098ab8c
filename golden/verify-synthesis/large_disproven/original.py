"""A merge wrong only at the size the program passes: below 3000 rows `x[:3000]` is all of `x`, so
the branches agree at every size drawing can build (an empty, a single or a few rows); at the
4096x4096 matrix of the call, one branch has 3000 rows and `where` broadcasts nothing: the rewrite
fails. Abstract evaluation at the described size disproves the merge; the fix is withdrawn."""
import jax
import jax.numpy as jnp

SYNTHESIS = {"verdicts": {"cap_rows": "disproven"},
             "proofs": {"cap_rows": "the rewrite fails at x=float32[4096,4096] where every branch succeeds"}}

MAX_ROWS = 3000


@jax.jit
def cap_rows(x):
    if jnp.any(x < 0):
        y = x[:MAX_ROWS]
    else:
        y = x
    return y


def main():
    return cap_rows(jnp.zeros((4096, 4096)))
