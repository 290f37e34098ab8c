"""Tiny codemods for the CLI/runner tests, so they do not depend on the real rules being written; and
one XLA compilation cache for every program the session runs."""
from __future__ import annotations

import os
import shutil
import tempfile

import libcst as cst
import libcst.matchers as m
import pytest

_JAX_CACHE = "JAX_COMPILATION_CACHE_DIR"


def pytest_configure(config) -> None:
    """Every jax program the tests run (golden batches, verify, profile, notebook kernels: each in an
    interpreter of its own) shares one compilation cache for the session: an eager run compiles each
    primitive, and the same primitives and programs recur in dozens of interpreters. Set before the
    xdist workers start, so they and everything they start inherit it; what jax counts as a
    compilation (the event the runtime's counters listen to) is the same for a cache hit."""
    if _JAX_CACHE in os.environ:
        return  # a worker (inherited from the controller), or chosen by whoever runs the tests
    directory = tempfile.mkdtemp(prefix="phiml-rewrite-tests-xla-")
    config._phiml_rewrite_jax_cache = directory
    os.environ.update({_JAX_CACHE: directory, "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
                       "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"})


def pytest_unconfigure(config) -> None:
    directory = getattr(config, "_phiml_rewrite_jax_cache", None)
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)

from rewriter import registry
from rewriter.codemod import Codemod, Example, Replace
from rewriter.findings import Safety


class FooToBar(Codemod):
    """`foo()` is spelled `bar()` nowadays (a safe rename)."""

    CODE = "PML901"
    NAME = "foo-to-bar"
    SUMMARY = "call bar() instead of foo()"
    SAFETY = Safety.SAFE
    TRIGGERS = (("foo",),)
    EXAMPLES = (Example("foo(1)", "bar(1)"),)

    def visit_Call(self, node: cst.Call) -> None:
        if m.matches(node.func, m.Name("foo")):
            self.report(node, "use bar() instead of foo()", edits=[Replace(node.func, cst.Name("bar"))])


class BazToBar(Codemod):
    """`baz()` can usually become `bar()`, but not always."""

    CODE = "PML902"
    NAME = "baz-to-bar"
    SUMMARY = "call bar() instead of baz()"
    SAFETY = Safety.UNSAFE
    TRIGGERS = (("baz",),)

    def visit_Call(self, node: cst.Call) -> None:
        if m.matches(node.func, m.Name("baz")):
            self.report(node, "use bar() instead of baz()", edits=[Replace(node.func, cst.Name("bar"))])


class NoQux(Codemod):
    """`qux()` is slow; there is no automatic fix."""

    CODE = "PML903"
    NAME = "no-qux"
    SUMMARY = "qux() is slow"
    SAFETY = Safety.DISPLAY
    TRIGGERS = (("qux",),)

    def visit_Call(self, node: cst.Call) -> None:
        if m.matches(node.func, m.Name("qux")):
            self.report(node, "qux() is slow")


TEST_CODEMODS = (FooToBar, BazToBar, NoQux)


@pytest.fixture
def fake_rules(monkeypatch):
    """Make the registry hold only the test codemods."""
    monkeypatch.setattr(registry, "all_codemods", lambda: TEST_CODEMODS)
    index = tuple(registry.Rule(c.CODE, c.NAME, c.safety_label(), c.SEVERITY.value, c.SUMMARY) for c in TEST_CODEMODS)
    monkeypatch.setattr(registry, "rule_index", lambda: index)
    return TEST_CODEMODS


@pytest.fixture
def settled(monkeypatch):
    """The clock of rewriter/file_digests.py 10 s ahead (far beyond its SETTLED_NS), its own only: every
    file a test just wrote has settled, so a run records its digest as it would for a user's files."""
    import time
    import types

    from rewriter import file_digests

    monkeypatch.setattr(file_digests, "time", types.SimpleNamespace(time_ns=lambda: time.time_ns() + 10_000_000_000))
