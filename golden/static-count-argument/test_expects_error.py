"""Must not change: tests that assert jit rejects a Python flag or count passed as a traced argument.
Declaring the parameters static (`static_argnames`) would make the calls work and the tests fail: both are
reported with the reason, not fixed (test_expects_error_control.py: the same code called to succeed)."""
import unittest

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML204:20", "PML204:26", "PML302:39"],
    "messages": {
        "PML204:20": "not fixed: this code is expected to fail: `with self.assertRaisesRegex`",
        "PML204:26": "not fixed: this code is expected to fail: `with self.assertRaisesRegex`",
        "PML302:39": "not fixed: this code is expected to fail: `with self.assertRaisesRegex`",
    },
}


@jax.jit
def pick(v, total):
    if total:
        return jnp.sum(v)
    return v * 2


def repeat(x, n):
    for _ in range(n):
        x = x * 2
    return x


class TestStatic(unittest.TestCase):
    def test_flag_is_traced(self):
        with self.assertRaisesRegex(jax.errors.TracerBoolConversionError, "bool"):
            pick(jnp.arange(3.), True)

    def test_count_is_traced(self):
        with self.assertRaisesRegex(jax.errors.TracerIntegerConversionError, "__index__"):
            jax.jit(repeat)(jnp.float32(1.0), 3)
