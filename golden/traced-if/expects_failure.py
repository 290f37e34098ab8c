"""Must not change: a test asserts that jit rejects Python control flow on a tracer. Its failure is the point.

The jitted function is called under `pytest.raises` and `self.assertRaises`; making it work would make the
tests fail: reported with that reason, not fixed. (A function that a test only calls normally would be fixed.)"""
import unittest

import jax
import jax.numpy as jnp
import pytest

GOLDEN = {
    "findings": ["PML201:22", "PML202:28"],
    "messages": {
        "PML201:22": "not fixed: this code is expected to fail: `with pytest.raises`",
        "PML202:28": "not fixed: this code is expected to fail: `self.assertRaises`",
    },
}


@jax.jit
def sign_branch(x):
    if x > 0:
        return x
    return -x


def loop_count(x, n):
    for _ in range(n):
        x = x * 2
    return x


jitted_loop = jax.jit(loop_count)


def test_jit_rejects_python_if():
    with pytest.raises(jax.errors.ConcretizationTypeError):
        sign_branch(jnp.float32(1.0))


class TestLoops(unittest.TestCase):
    def test_traced_count_is_rejected(self):
        self.assertRaises(jax.errors.ConcretizationTypeError, jitted_loop, jnp.ones(2), jnp.int32(3))
