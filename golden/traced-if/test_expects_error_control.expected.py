"""The positive control of test_expects_error.py: the same jitted functions in a test module, called to
succeed, are fixed. A `try` around a call is no expectation when its handler re-raises or fails the
test (`pytest.fail`): the error is not wanted there."""
import jax
import jax.numpy as jnp
import pytest

GOLDEN = {
    "findings": ["PML201:19", "PML201:26", "PML201:33"],
    "framework": "jax",
    "backends": ["jax"],
    "original_broken": {"jax": "TracerBoolConversionError"},
}
Concretization = jax.errors.ConcretizationTypeError


@jax.jit
def called_plainly(x):
    return jnp.where(x > 0, x, -x)


@jax.jit
def reraised(x):
    return jnp.where(x > 0, x, -x)


@jax.jit
def failing_the_test(x):
    return jnp.where(x > 0, x, -x)


def test_called_plainly():
    assert called_plainly(jnp.float32(-2.0)) == 2.0


def test_reraised():
    try:
        reraised(jnp.float32(-2.0))
    except Concretization as e:
        raise AssertionError(f"jit rejected it: {e}") from e


def test_failing_the_test():
    try:
        failing_the_test(jnp.float32(-2.0))
    except Concretization:
        pytest.fail("jit rejected it")


def golden_run():
    x = jnp.float32(-2.0)
    return [called_plainly(x), reraised(x), failing_the_test(x), called_plainly(-x)]
