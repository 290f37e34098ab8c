"""Must not change: tests that expect jit to reject a Python `if` on a tracer, in every form a test says so.

Each jitted function is reached from one form: `with pytest.raises(..., match=)`, the call form
`pytest.raises(E, f, x)`, `with self.assertRaises`, the call form of `assertRaisesRegex` (pattern, then the
function), `with self.assertRaisesRegex` around `jax.jit(f)(x)` (the callee is a call), a lambda handed to
`assertRaises`, a def local to the test, a method bound in `setUp`, a helper the test calls, and an
`assertRaises` inside `assertWarns` (the innermost form is the one named). Making any of them work would
make its test fail: each is reported with the reason it is not fixed (test_expects_error_control.py: the
same code, called to succeed, is fixed)."""
import unittest
import warnings

import jax
import jax.numpy as jnp
import pytest

GOLDEN = {
    "findings": ["PML201:41", "PML201:48", "PML201:55", "PML201:62", "PML201:68", "PML201:74", "PML201:80",
                 "PML201:87", "PML102:107", "PML201:108", "PML201:124", "PML302:142", "PML302:145"],
    "messages": {
        "PML102:107": "not fixed: this code is expected to fail: `with pytest.raises`",
        "PML201:41": "not fixed: this code is expected to fail: `with pytest.raises`",
        "PML201:48": "not fixed: this code is expected to fail: `pytest.raises`",
        "PML201:55": "not fixed: this code is expected to fail: `with self.assertRaises`",
        "PML201:62": "not fixed: this code is expected to fail: `self.assertRaisesRegex`",
        "PML201:87": "not fixed: this code is expected to fail: `with pytest.raises`",
        "PML201:108": "not fixed: this code is expected to fail: `with pytest.raises`",
        "PML201:124": "not fixed: this code is expected to fail: `with self.assertRaises`",
        "PML201:80": "not fixed: this code is expected to fail: `with self.assertRaises`",
        "PML201:68": "not fixed: this code is expected to fail: `with self.assertRaisesRegex`",
        "PML201:74": "not fixed: this code is expected to fail: `self.assertRaises`",
        "PML302:142": "not fixed: this code is expected to fail: `with self.assertRaisesRegex`",
        "PML302:145": "not fixed: this code is expected to fail: `self.assertRaises`",
    },
}
Concretization = jax.errors.ConcretizationTypeError


@jax.jit
def with_raises(x):
    if x > 0:
        return x
    return -x


@jax.jit
def call_raises(x):
    if x > 0:
        return x
    return -x


@jax.jit
def with_assert_raises(x):
    if x > 0:
        return x
    return -x


@jax.jit
def call_assert_regex(x):
    if x > 0:
        return x
    return -x


def callee_is_a_call(x):
    if x > 0:
        return x
    return -x


def in_lambda(x):
    if x > 0:
        return x
    return -x


def bound_in_setup(x):
    if x > 0:
        return x
    return -x


@jax.jit
def from_helper(x):
    if x > 0:
        return x
    return -x


def run_helper(x):
    return from_helper(x) + 1


def test_with_raises():
    with pytest.raises(Concretization, match="concrete"):
        with_raises(jnp.float32(1.0))


def test_call_raises():
    pytest.raises(Concretization, call_raises, jnp.float32(1.0))


def test_local_def():
    @jax.jit
    def local(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(Concretization):
        local(jnp.float32(1.0))


def test_helper():
    with pytest.raises(Concretization):
        run_helper(jnp.float32(1.0))


@jax.jit
def warns(x):
    warnings.warn("checked", UserWarning)
    if x > 0:
        return x
    return -x


class TestForms(unittest.TestCase):
    def setUp(self):
        self.step = jax.jit(bound_in_setup)

    def test_with_assert_raises(self):
        with self.assertRaises(Concretization):
            with_assert_raises(jnp.float32(1.0))

    def test_call_assert_regex(self):
        self.assertRaisesRegex(Concretization, "concrete", call_assert_regex, jnp.float32(1.0))

    def test_callee_is_a_call(self):
        with self.assertRaisesRegex(Concretization, "concrete"):
            jax.jit(callee_is_a_call)(jnp.float32(1.0))

    def test_lambda(self):
        self.assertRaises(Concretization, lambda: jax.jit(in_lambda)(jnp.float32(1.0)))

    def test_method(self):
        with self.assertRaises(Concretization):
            self.step(jnp.float32(1.0))

    def test_warns(self):
        with self.assertWarns(UserWarning):
            with self.assertRaises(Concretization):
                warns(jnp.float32(1.0))
