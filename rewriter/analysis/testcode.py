"""Test code: what a test suite observes, and calls whose failure is the point.

Two facts that decide whether a rewrite keeps a test's meaning:

- **Expected failures.** A call inside `with pytest.raises(...)` / `with self.assertRaises(...)`, or
  handed to `self.assertRaises(E, f, ...)` / `pytest.raises(E, f, ...)`, is meant to fail: a test
  that asserts `jax.jit` rejects a Python `if` on a tracer fails once the `if` becomes `where`. The
  jitted functions such calls reach are left alone by the rules that would make them work.
- **What tests observe.** pytest collects module-level functions named `test*` and classes named
  `Test*`; tests inspect `__name__`, frames and tracebacks; and a jit built at module level keeps
  its trace cache from one test to the next, where a test building it inside saw a fresh cache.
  Names the tool creates never match a collector's pattern (`fresh_name`), and fixes that move code
  out of a test (lifting, hoisting) are unsafe there: the values are the same, what the tests
  observe may not be.
"""
from __future__ import annotations

import os
from functools import cached_property

import libcst as cst

from ..cst_tree import children
from .names import NameResolver

_RAISES = frozenset({"pytest.raises", "unittest.TestCase.assertRaises"})
_ASSERT_RAISES = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "failUnlessRaises"})
# Patterns of pytest's default collection (python_functions = "test", python_classes = "Test").
COLLECTED_PREFIXES = ("test", "Test")


def is_test_path(path: str) -> bool:
    """`test_*.py`, `*_test.py`, `conftest.py`, or a file under a `tests`/`test` directory."""
    name = os.path.basename(path)
    parts = {p for p in os.path.normpath(path).split(os.sep)[:-1]}
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or bool(parts & {"tests", "test"})


def collectable(name: str) -> bool:
    """A module-level name pytest would collect as a test (or a test class)."""
    return name.startswith(COLLECTED_PREFIXES)


class TestCode:
    """Per module: the calls meant to fail, and whether a node is test code."""

    def __init__(self, resolver: NameResolver, path: str) -> None:
        self.resolver = resolver
        self.path = path

    @cached_property
    def test_file(self) -> bool:
        return is_test_path(self.path)

    def in_test(self, node: cst.CSTNode) -> bool:
        """`node` is in a test file, or inside a `test*` function or a `Test*` class."""
        if self.test_file:
            return True
        current = self.resolver.parent(node)
        while current is not None:
            if isinstance(current, (cst.FunctionDef, cst.ClassDef)) and collectable(current.name.value):
                return True
            current = self.resolver.parent(current)
        return False

    @cached_property
    def expected_failures(self) -> list[cst.CSTNode]:
        """Callees (expressions) of calls meant to fail: `f` of `f(x)` under `pytest.raises`, or the
        function handed to `assertRaises(E, f, ...)`."""
        out: list[cst.CSTNode] = []
        spelled = self.resolver.spelled
        if spelled is not None and not any("aises" in name for name in spelled):
            return out  # every spelling of pytest.raises and assertRaises* has a Name saying so
        stack: list[cst.CSTNode] = [self.resolver.wrapper.module]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.With) and any(self._raises(item.item) for item in node.items):
                out += _callees(node.body)
            elif isinstance(node, cst.Call) and self._raises_call(node):
                positional = [a.value for a in node.args if a.keyword is None and not a.star]
                if len(positional) >= 2:
                    target = positional[1]
                    out += _callees(target) if isinstance(target, cst.Lambda) else [target]
            stack.extend(children(node))
        return out

    def _raises(self, expr: cst.BaseExpression) -> bool:
        return isinstance(expr, cst.Call) and self._raises_call(expr)

    def _raises_call(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _ASSERT_RAISES:
            return True  # self.assertRaises / case.assertRaisesRegex
        if isinstance(func, (cst.Name, cst.Attribute)):
            try:
                return bool(self.resolver.qualified_names(func) & _RAISES)
            except Exception:
                return False
        return False


def _callees(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The callee of every call in `node` (not inside nested defs or classes)."""
    out = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call):
            out.append(current.func)
        if isinstance(current, (cst.FunctionDef, cst.ClassDef)):
            continue
        stack.extend(children(current))
    return out
