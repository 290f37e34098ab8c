"""The positive control of test_reads_structure.py: a test module whose tests read only values. The inner
jit is removed (the outer trace inlines it) and the jit of a jitted function becomes one jit."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML303:19", "PML302:27", "PML303:27"],
    "framework": "jax",
    "backends": ["jax"],
}


def square(v):
    return v * v


@jax.jit
def outer(v):
    return square(v) + 1


def test_values():
    assert float(outer(jnp.float32(3.0))) == 10.0


def test_wrapped_values():
    wrapped = jax.jit(square)
    assert float(wrapped(jnp.float32(3.0))) == 9.0


def golden_run():
    x = jnp.arange(3.)
    return [outer(x), outer(x + 1)]
