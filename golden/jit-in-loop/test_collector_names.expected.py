"""Test code: a hoisted jit never gets a name pytest would collect, and moving it is unsafe here.

This file is named like a test module. `test_square_lambda_jit` at module level would be collected as a test
(and error); the hoisted name is `_test_square_lambda_jit`. The fix is unsafe in test code: a jit at module
level keeps its traces from one test to the next, and tests observe names and frames."""
import jax

GOLDEN = {
    "findings": ["PML302:17"],
    "unsafe_fixes": True,
    "framework": "jax",
    "backends": ["jax"],
}


_test_square_lambda_jit = jax.jit(lambda x: x ** 2)


def test_square():
    f = _test_square_lambda_jit
    assert f(2.0) == 4.0
    return f(3.0)


def golden_run():
    return [test_square()]
