"""Which code can run on the installed versions (rewriter/analysis/reachability.py), and findings
and fixes inside code that cannot are not reported (Codemod.report)."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from rewriter.analysis import ModuleAnalysis
from rewriter.engine import Settings, process_source
from rewriter.findings import Span
from rewriter.registry import all_codemods


def _runs(source: str) -> dict[str, bool]:
    """`marker` (a name assigned from a call `mark("marker")`) -> whether that statement may run."""
    analysis = ModuleAnalysis(cst.MetadataWrapper(cst.parse_module(textwrap.dedent(source)), unsafe_skip_copy=True))
    out = {}
    stack = [analysis.wrapper.module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "mark":
            out[node.args[0].value.evaluated_value] = analysis.reachability.may_run(_span(analysis, node))
        stack.extend(node.children)
    return out


def _span(analysis, node) -> Span:
    r = analysis.names.positions[node]
    return Span(r.start.line, r.start.column, r.end.line, r.end.column)


def test_hasattr_on_an_installed_module():
    assert _runs("""
        import jax
        import jax.numpy as jnp
        if hasattr(jax, "pure_callback"):
            mark("exists")
        else:
            mark("fallback")
        if not hasattr(jnp, "product"):
            mark("no product")
        elif hasattr(jax, "experimental"):
            mark("elif after a true test")
        else:
            mark("has product")
        value = mark("left") if hasattr(jax, "tree_map") else mark("right")
        ok = hasattr(jax, "tree_map") and mark("short-circuited")
    """) == {"exists": True, "fallback": False, "no product": True, "elif after a true test": False,
             "has product": False, "left": False, "right": True, "short-circuited": False}


def test_names_that_are_not_the_module_decide_nothing():
    assert _runs("""
        import jax
        def run(jax):
            if hasattr(jax, "pure_callback"):
                mark("parameter")
            else:
                mark("parameter fallback")
        import mylib
        if hasattr(mylib, "thing"):
            mark("unknown module")
        def hasattr(obj, name):
            return False
        if hasattr(jax, "pure_callback"):
            mark("own hasattr")
        else:
            mark("own hasattr fallback")
    """) == {"parameter": True, "parameter fallback": True, "unknown module": True, "own hasattr": True,
             "own hasattr fallback": True}


def test_star_imported_module():
    assert _runs("""
        from phi.jax.flow import *
        if hasattr(jax, "pure_callback"):
            mark("exists")
        else:
            mark("fallback")
    """) == {"exists": True, "fallback": False}


@pytest.mark.parametrize("test, runs", [
    ("sys.version_info < (3, 8)", False),
    ("sys.version_info[:2] <= (3, 10)", False),
    ("sys.version_info >= (3, 8)", True),
    ("(3, 9) <= sys.version_info", True),
    ("sys.version_info[0] >= 3", True),
    ("sys.version_info.major < 3", False),
    ("sys.version_info >= (3, 12)", None),  # depends on the Python: undecided
    ("sys.version_info < (3, 13)", None),
    ("sys.version_info[:2] == (3, 7)", False),
    ("sys.version_info[:2] != (3, 7)", True),
    ("sys.version_info[:2] == (3, 12)", None),
])
def test_version_comparisons(test: str, runs):
    found = _runs(f"import sys\nif {test}:\n    mark('body')\nelse:\n    mark('else')\n")
    expected = {"body": True, "else": True} if runs is None else {"body": runs, "else": not runs}
    assert found == expected


def test_version_info_must_be_sys():
    assert _runs("""
        from mylib import version_info
        if version_info < (3, 8):
            mark("body")
    """) == {"body": True}


def test_try_imports():
    assert _runs("""
        try:
            import jax.experimental.host_callback as hcb
            mark("after a failing import")
        except ImportError:
            mark("handler of a failing import")
        else:
            mark("else of a failing import")
        try:
            from jax import pure_callback
        except ImportError:
            mark("handler of an import that exists")
        except Exception:
            mark("broader handler")
        try:
            from jax import pure_callback
            setup()
        except ImportError:
            mark("handler of a body that does more")
        try:
            import torch
        except ImportError:
            mark("handler of an unknown package")
    """) == {"after a failing import": False, "handler of a failing import": True, "else of a failing import": False,
             "handler of an import that exists": False, "broader handler": True,
             "handler of a body that does more": True, "handler of an unknown package": True}


def test_findings_and_fixes_in_dead_branches_are_not_reported():
    source = textwrap.dedent("""
        import jax
        import jax.numpy as jnp
        if hasattr(jnp, "product"):
            total = jnp.product(jnp.arange(3))
        else:
            total = jnp.product(jnp.arange(4))
    """).encode()
    result = process_source(source, "compat.py", Settings(all_codemods()))
    assert [(f.code, f.span.line) for f in result.findings] == [("PML604", 7)]
    assert result.new_source.decode().splitlines()[4:] == [
        "    total = jnp.product(jnp.arange(3))", "else:", "    total = jnp.prod(jnp.arange(4))"]
