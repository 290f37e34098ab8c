"""Changed unittest methods need no inputs: each runs as its runner would, original and rewrite, as
written. The rewrite of `test_ramp` (a jit built once) keeps what the test asserts; the rewrite of
`test_ramp_dtype` changes the dtype the test asserts; a skipped test and a test with parameters
say nothing without their runner."""
import unittest

import jax
import jax.numpy as jnp

SYNTHESIS = {
    "verdicts": {"RampTest.test_ramp": "verified", "RampTest.test_ramp_dtype": "falsified",
                 "RampTest.test_skipped": "unsynthesizable", "RampTest.test_with_parameter": "unsynthesizable"},
    "reasons": {"RampTest.test_ramp": "the test passes", "RampTest.test_ramp_dtype": "the rewritten test fails",
                "RampTest.test_skipped": "skipped", "RampTest.test_with_parameter": "--pytest"},
}


def ramp(x):
    return jnp.maximum(x, 0.0)


ramp_jit = jax.jit(ramp)


class RampTest(unittest.TestCase):
    def test_ramp(self):
        total = 0.0
        for v in (1.0, -2.0, 3.0):
            total += ramp_jit(jnp.float32(v))
        self.assertAlmostEqual(float(total), 4.0)

    def test_ramp_dtype(self):
        y = jnp.maximum(jnp.arange(3), 0.0)
        self.assertEqual(y.dtype, jnp.int32)

    @unittest.skip("needs an accelerator")
    def test_skipped(self):
        self.assertEqual(float(ramp_jit(jnp.float32(-1.0))), 0.0)

    def test_with_parameter(self, v=2.0):
        self.assertEqual(float(ramp_jit(jnp.float32(v))), v)
