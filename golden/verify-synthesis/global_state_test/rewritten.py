"""A test that changes process-wide state (an environment variable here; a logging level or a config
flag in real suites) and asserts it was unset when it began. Each version's tests run in a process of
their own, as two runs of the suite would: the rewrite is verified, not blamed for the original's
leftovers."""
import os
import unittest

import jax
import jax.numpy as jnp

SYNTHESIS = {"verdicts": {"KnobTest.test_sets_a_global_knob": "verified"},
             "reasons": {"KnobTest.test_sets_a_global_knob": "the test passes"}}


_test_sets_a_global_knob_lambda_jit = jax.jit(lambda x: x + 1)


class KnobTest(unittest.TestCase):
    def test_sets_a_global_knob(self):
        self.assertNotIn("PHIML_REWRITE_GOLDEN_KNOB", os.environ)
        os.environ["PHIML_REWRITE_GOLDEN_KNOB"] = "1"
        self.assertEqual(float(_test_sets_a_global_knob_lambda_jit(jnp.float32(1))), 2.0)
