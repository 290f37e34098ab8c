"""Must not change: a test asserts that the jitted simulation rejects states of different lengths. The
loop is reported (200 copies of its body) but not turned into a `scan` inside code a test expects to fail:
what fails, and how, is the test's subject (jax_trajectory.py: the same loop, called to succeed, is fixed)."""
import jax
import jax.numpy as jnp
import pytest

GOLDEN = {
    "findings": ["PML206:19"],
    "messages": {
        "PML206:19": "not fixed: this code is expected to fail: `with pytest.raises`",
    },
}


@jax.jit
def trajectory(x, v):
    states = []
    for _ in range(200):
        v = v - 0.01 * jnp.sin(x)
        x = x + 0.01 * v
        states.append(x)
    return jnp.stack(states), v


def test_lengths_must_agree():
    with pytest.raises(TypeError, match="incompatible shapes"):
        trajectory(jnp.ones(8), jnp.zeros(3))
