"""Must not change: tests that read what an inner jit makes of the program. Removing the inner jit keeps
the values but changes what each test asserts: the jaxpr's `jit` equation, the lowered text, the
wrapper's cache and name, how often a side effect runs at trace time (the inner jit traces once and
reuses it), a leak the checker must catch, and a test named for the jit of a jit. Each is reported with
what the test reads (test_reads_nothing.py: the same code, read only for its values, is fixed)."""
import inspect

import jax
import jax.numpy as jnp
import pytest

GOLDEN = {
    "findings": ["PML303:42", "PML303:48", "PML303:57", "PML303:66", "PML303:72", "PML303:78", "PML501:86",
                 "PML102:91", "PML303:92", "PML303:92", "PML501:102", "PML102:106", "PML303:107", "PML501:120",
                 "PML303:123", "PML303:130", "PML303:136"],
    "framework": "jax",
    "backends": ["jax"],
    "messages": {
        "PML303:42": "not fixed: the tests of this module inspect the structure the fix changes: the jaxpr (`make_jaxpr`)",
        "PML303:48": "not fixed: this test inspects the structure the fix changes: the staged program (`jaxpr`)",
        "PML303:57": "not fixed: this test inspects the structure the fix changes: the staged program (`hlo`)",
        "PML303:66": "not fixed: this test inspects the structure the fix changes: the jaxpr (`make_jaxpr`)",
        "PML303:72": "not fixed: this test inspects the structure the fix changes: the size of a jit's cache (`_cache_size`)",
        "PML303:78": "not fixed: this test inspects the structure the fix changes: a function's name (`__name__`)",
        "PML303:92": "not fixed: this test inspects the structure the fix changes: a count kept by a side effect (`nonlocal`)",
        "PML303:107": "not fixed: this test inspects the structure the fix changes: a record kept by a side effect (`.append(...)`)",
        "PML303:123": "not fixed: this code is expected to fail: `with pytest.raises`",
        "PML303:130": "not fixed: this test inspects the structure the fix changes: its name says it tests `jit` (`test_jit_of_jit`)",
        "PML303:136": "not fixed: the tests of this module inspect the structure the fix changes: the jaxpr (`make_jaxpr`)",
    },
}


def square(v):
    return v * v


def staged_text(f, x):
    return str(jax.make_jaxpr(f)(x))


doubled = jax.jit(jax.jit(square))


def test_jaxpr_equations():
    @jax.jit
    def outer(v):
        return jax.jit(square)(v) + 1

    body = jax.make_jaxpr(outer)(jnp.ones(3)).jaxpr.eqns[0].params["jaxpr"]
    assert any(e.primitive.name == "jit" for e in body.eqns)


def test_lowered_text():
    @jax.jit
    def outer(v):
        return jax.jit(square)(v) + 1

    hlo = outer.lower(jnp.ones(3)).as_text()
    assert "square" in hlo


def test_through_a_helper():
    @jax.jit
    def outer(v):
        return jax.jit(square)(v) + 1

    assert "name=square" in staged_text(outer, jnp.ones(3))


def test_cache_size():
    wrapped = jax.jit(jax.jit(square))
    wrapped(jnp.ones(3))
    assert wrapped._cache_size() == 1


def test_wrapper_name():
    wrapped = jax.jit(jax.jit(square))
    assert wrapped.__name__ == "square"


def test_traced_once():
    traces = 0

    def inner(v):
        nonlocal traces
        traces += 1
        return v * 2

    @jax.jit
    def outer(v):
        return jax.jit(inner)(v) + jax.jit(inner)(v)

    outer(jnp.ones(3))
    assert traces == 1


def test_frames():
    depths = []

    def inner(v):
        depths.append(len(inspect.stack()))
        return v * 2

    @jax.jit
    def outer(v):
        return jax.jit(inner)(v)

    outer(jnp.ones(3))
    assert depths


def test_leaks_are_caught():
    with jax.checking_leaks():
        @jax.jit
        def outer(v):
            leaked = []

            def inner(w):
                leaked.append(w)
                return w

            return jax.jit(inner)(v)

        with pytest.raises(Exception, match="Leaked"):
            outer(jnp.ones(3))


def test_jit_of_jit():
    wrapped = jax.jit(jax.jit(square))
    assert float(wrapped(jnp.float32(3.0))) == 9.0


def golden_run():
    x = jnp.arange(3.)
    return [doubled(x), jax.jit(jax.jit(square))(x)]
