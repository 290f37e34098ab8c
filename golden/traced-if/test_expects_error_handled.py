"""Must not change: tests that expect a failure without `raises`: a `try` whose handler reads the error
(`msg = str(e)`, then the test asserts on `msg`: a `where` there leaves `msg` unbound), a `try` whose
handler sets a flag the test asserts, and tests marked `pytest.mark.xfail(strict=True)` or
`unittest.expectedFailure`. Each jitted function is reported with the reason it is not fixed."""
import unittest

import jax
import jax.numpy as jnp
import pytest

GOLDEN = {
    "findings": ["PML201:25", "PML201:32", "PML201:39", "PML201:46"],
    "messages": {
        "PML201:25": "not fixed: this code is expected to fail: an `except` that reads the error (`e`)",
        "PML201:32": "not fixed: this code is expected to fail: an `except` that handles the failure in a test",
        "PML201:39": "not fixed: this code is expected to fail: the test is marked `pytest.mark.xfail`",
        "PML201:46": "not fixed: this code is expected to fail: the test is marked `unittest.expectedFailure`",
    },
}
Concretization = jax.errors.ConcretizationTypeError


@jax.jit
def message_read(x):
    if x > 0:
        return x
    return -x


@jax.jit
def flag_set(x):
    if x > 0:
        return x
    return -x


@jax.jit
def marked_xfail(x):
    if x > 0:
        return x
    return -x


@jax.jit
def expected_failure(x):
    if x > 0:
        return x
    return -x


def test_message():
    try:
        message_read(jnp.float32(1.0))
    except Exception as e:
        msg = str(e)
    assert "concrete" in msg.lower()


def test_flag():
    raised = False
    try:
        flag_set(jnp.float32(1.0))
    except Concretization:
        raised = True
    assert raised


@pytest.mark.xfail(raises=Concretization, strict=True)
def test_marked_xfail():
    marked_xfail(jnp.float32(1.0))


class TestMarked(unittest.TestCase):
    @unittest.expectedFailure
    def test_expected_failure(self):
        expected_failure(jnp.float32(1.0))
