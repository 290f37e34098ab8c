"""rewriter.analysis.ast_resolver: what each Name and attribute chain of a module denotes.

Over a source: every Name and attribute chain with a dotted spelling, by its line and spelling, is
resolved: the qualified names it may denote, the API it is, and the kinds of the bindings its read may
see when it is read (`reaching`), with how often each answer occurs. The answers on every construct
(tests/test_ast_scopes.SYNTAX), the targeted cases below, and the golden cases and examples are recorded
in tests/data/readings/resolver_*.txt (tests/harness/readings.py): they are the answers libcst's resolver
(names.NameResolver on rewriter/analysis/scopes.py, deleted) gave, which this test compared with the
`ast` ones on the same code until then. `python -m tests.test_ast_resolver --record` writes them again;
`python -m tests.test_ast_resolver PATH...` prints the reading of other files.
"""
from __future__ import annotations

import ast
import sys
from collections import Counter

import pytest

from rewriter.analysis import ast_resolver
from rewriter.analysis.aliases import NO_ALIASES
from rewriter.analysis.ast_names import dotted

from tests.harness import readings
from tests.test_ast_scopes import KINDS, SYNTAX

FORMS = [
    "import jax\nimport jax.numpy as jnp\nf = jax.jit(lambda x: jnp.sum(x))\n",
    "from phiml import math\nfrom phiml.math import jit_compile as jc\n@jc\ndef f(x):\n    return math.sin(x)\n",
    "from phi.flow import *\ny = math.jit_compile(f)\nmath = 1\n",
    "def step(x): return x\nstep = 1\nif c:\n    step = 2\nprint(step)\ndef g():\n    return step\n",
    "with a as step:\n    step = 3\nprint(step)\n",
]
RELATIVE = "from ..math import batch\nfrom . import util\nbatch(util.x)\n"  # read in package `pkg.sub`


def reading(source: str, package: str = "") -> list[str]:
    """One line per answer (sorted; `xN`: N times alike): the line and spelling of a Name or attribute
    chain, the qualified names it may denote (`->`), the API it is, and the kinds of the bindings a
    Name's read may see."""
    tree = ast.parse(source)
    resolver = ast_resolver.NameResolver(tree, package, NO_ALIASES)
    found: Counter = Counter()
    for node in ast.walk(tree):
        text = dotted(node) if type(node) in (ast.Name, ast.Attribute) else None
        if text is None:
            continue  # (a chain through a call or a subscript has no dotted spelling)
        reaching = resolver.reaching(node) if type(node) is ast.Name else ()
        api = resolver.api(node)
        bindings = ",".join(sorted(KINDS.get(type(getattr(a, "node", None)), "other") for a in reaching))
        qualified = ",".join(sorted(resolver.qualified_names(node)))
        found[f"{node.lineno} {text} -> {qualified} api {api.name if api else '-'} sees [{bindings}]"] += 1
    return sorted(key + (f" x{n}" if n > 1 else "") for key, n in found.items())


def _cases() -> dict[str, list[str]]:
    out = readings.read_all([("SYNTAX", SYNTAX), *((repr(s), s) for s in FORMS)], reading)
    return {**out, "RELATIVE in pkg.sub": reading(RELATIVE, package="pkg.sub")}


def _golden() -> dict[str, list[str]]:
    return readings.read_all(readings.golden_and_examples(), reading)


RECORDINGS = {"resolver_cases": _cases, "resolver_golden": _golden}


def _check(name: str, found: dict[str, list[str]], only: list[str] | None = None) -> None:
    readings.check(name, found, "tests.test_ast_resolver", only)


def test_every_construct_resolves_as_recorded():
    _check("resolver_cases", {"SYNTAX": reading(SYNTAX)}, ["SYNTAX"])


@pytest.mark.parametrize("source", FORMS)
def test_forms(source):
    _check("resolver_cases", {repr(source): reading(source)}, [repr(source)])


def test_bindings_in_one_statement_reach_in_the_order_written():
    """A `with ... as s` and the bindings in its body are one statement of the block: the read after it
    sees the last one that certainly ran and the ones after it that may have (a nested `with` may not
    run its body), on every run (they were
    ordered as a set iterates, which differs from run to run)."""
    source = "with a as s:\n    with b as s:\n        pass\n    if c:\n        s = 3\nprint(s)\n"
    tree = ast.parse(source)
    on_ast = ast_resolver.NameResolver(tree)
    for _ in range(20):
        assert sorted(a.node.lineno for a in on_ast.reaching(tree.body[-1].value.args[0])) == [1, 2, 5]


def test_relative_imports_resolve_in_their_package():
    key = "RELATIVE in pkg.sub"
    _check("resolver_cases", {key: reading(RELATIVE, package="pkg.sub")}, [key])
    assert "3 batch -> pkg.math.batch api - sees [import]" in reading(RELATIVE, package="pkg.sub")


def test_the_recorded_cases_are_all_asked():
    assert readings.recorded("resolver_cases").keys() == _cases().keys()


def test_golden_cases_and_examples_resolve_as_recorded():
    found = _golden()
    _check("resolver_golden", found)
    assert len(found) > 200


if __name__ == "__main__":
    sys.exit(readings.main("tests.test_ast_resolver", RECORDINGS, reading))
