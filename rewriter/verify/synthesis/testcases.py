"""Changed tests need no inputs: they are run as their runner would run them, original and rewrite.

A method `TestX.test_y(self)` of a unittest class (any base named `...TestCase`, directly or through
a class of the same module), a method of a pytest class `TestX` without `__init__`, and a
module-level `test_y()` without parameters. A test states its author's meaning in its assertions,
so both versions run as written, jit on: an original that passes only eagerly is not what the test
asserts. Both pass: verified. The original passes and the rewrite fails: falsified, with the
failure. An original that fails or is skipped says nothing about the rewrite: not synthesizable,
with its reason. Tests with parameters (pytest fixtures, `parameterized`) are left to `--pytest`.
"""
from __future__ import annotations

import ast

PASSES = "the test passes, original and rewrite"
ASYNC = "an async test: verify it with --pytest"
WITH_PYTEST = "a test with parameters (fixtures or parameterized cases): verify it with --pytest"


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return _base_name(node.value)
    return node.id if isinstance(node, ast.Name) else ""


def _is_unittest(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], seen: frozenset = frozenset()) -> bool:
    for base in cls.bases:
        name = _base_name(base)
        if name.endswith("TestCase"):
            return True
        if name in classes and name not in seen and _is_unittest(classes[name], classes, seen | {cls.name}):
            return True
    return False


def _only_self(function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> bool:
    args = function.args
    positional = args.posonlyargs + args.args
    return not (args.vararg or args.kwarg or args.kwonlyargs) and len(positional) == (1 if method else 0)


def kind(tree: ast.Module, name: str) -> tuple[str, str]:
    """("unittest" | "pytest" | "", why not runnable): how the unit `name` runs as a test, if it is one."""
    if "." in name:
        class_name, _, method_name = name.partition(".")
        cls = _classes(tree).get(class_name)
        if cls is None or "." in method_name or not method_name.startswith("test"):
            return "", ""
        method = next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and s.name == method_name), None)
        if method is None:
            return "", ""
        unittest = _is_unittest(cls, _classes(tree))
        pytest_class = class_name.startswith("Test") and not any(
            isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in cls.body)
        if not (unittest or pytest_class):
            return "", ""
        if isinstance(method, ast.AsyncFunctionDef):
            return "", ASYNC
        if not _only_self(method, True) or method.decorator_list and unittest and any(
                "parameter" in ast.unparse(d) or "product" in ast.unparse(d) for d in method.decorator_list):
            return "", WITH_PYTEST
        return ("unittest" if unittest else "pytest"), ""
    function = next((s for s in reversed(tree.body) if isinstance(s, ast.FunctionDef) and s.name == name), None)
    if function is None or not name.startswith("test"):
        return "", ""
    return ("pytest", "") if _only_self(function, False) and not function.decorator_list else ("", WITH_PYTEST)


def run(module, name: str, how: str) -> tuple[str, str]:
    """("passed" | "failed" | "skipped", what the runner said): one run of the test in `module`."""
    import unittest

    if how == "unittest":
        class_name, _, method_name = name.partition(".")
        result = unittest.TestResult()
        unittest.TestSuite([getattr(module, class_name)(method_name)]).run(result)  # class fixtures, setUp, skips
        if result.skipped:
            return "skipped", result.skipped[0][1]
        problems = result.errors + result.failures
        if problems:
            return "failed", _last_line(problems[0][1])
        return "passed", ""
    try:
        if "." in name:
            class_name, _, method_name = name.partition(".")
            instance = getattr(module, class_name)()
            method = getattr(instance, method_name)
            if hasattr(instance, "setup_method"):
                instance.setup_method(method)
            try:
                method()
            finally:
                if hasattr(instance, "teardown_method"):
                    instance.teardown_method(method)
        else:
            getattr(module, name)()
    except unittest.SkipTest as e:
        return "skipped", str(e)
    except BaseException as e:  # a failed test, whatever it raised (pytest's skip is an exception too)
        if type(e).__name__ == "Skipped":
            return "skipped", str(e)
        if isinstance(e, KeyboardInterrupt):
            raise
        return "failed", f"{type(e).__name__}: {e}".strip()[:500]
    return "passed", ""


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:500] if lines else ""


def compare(original: tuple[str, str], rewritten: tuple[str, str]) -> dict:
    """A worker's result for a test from the outcomes of its two versions."""
    status, said = original
    if status == "skipped":
        return {"status": "unsynthesizable", "reason": f"the original test is skipped here ({said})"}
    if status == "failed":
        return {"status": "unsynthesizable", "reason": f"the original test fails here ({said})"}
    if rewritten[0] == "passed":
        return {"status": "verified", "examples": 1, "reason": PASSES}
    if rewritten[0] == "skipped":
        return {"status": "falsified", "inputs": "(the test itself)",
                "reason": f"the rewritten test is skipped where the original passes ({rewritten[1]})"}
    return {"status": "falsified", "inputs": "(the test itself)", "reason": f"the rewritten test fails: {rewritten[1]}"}
