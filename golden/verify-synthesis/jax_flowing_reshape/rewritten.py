"""jax: a branch on a reduction, merged with `jnp.where`; the only caller passes a column of a
`linspace` reshaped to (128, 1) and mapped through `sin`. The input is described from that flow
(float32[128]) and the merge is verified, empty and length-1 axes included."""
import jax
import jax.numpy as jnp

SYNTHESIS = {"verdicts": {"boost": "verified"}}


@jax.jit
def boost(y):
    return jnp.where(y.sum() > 0, y * 2.0, y)


def main():
    x = jnp.linspace(-1.0, 1.0, 128).reshape(-1, 1)
    y = jnp.sin(3.0 * x)
    return boost(y[:, 0])
