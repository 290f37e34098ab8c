"""Tiny codemods for the CLI/runner tests, so they do not depend on the real rules being written."""
from __future__ import annotations

import libcst as cst
import libcst.matchers as m
import pytest

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
    return TEST_CODEMODS
