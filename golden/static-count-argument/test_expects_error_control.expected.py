"""The positive control of test_expects_error.py: the same code in a test module, called to succeed, is fixed."""
import jax
import jax.numpy as jnp
import functools

GOLDEN = {
    "findings": ["PML204:14"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}


@functools.partial(jax.jit, static_argnames=('total',))
def pick(v, total):
    if total:
        return jnp.sum(v)
    return v * 2


def test_pick():
    assert pick(jnp.arange(3.), True) == 3.0


def golden_run():
    v = jnp.arange(3.)
    return [pick(v, True), pick(v, False)]
