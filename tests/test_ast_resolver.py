"""rewriter.analysis.ast_resolver resolves what rewriter.analysis.names resolves, on CPython's `ast`.

Every Name and attribute chain read or bound in an expression is resolved by both, and compared by its
line and its spelling: the qualified names it may denote, the API it is, and the bindings its read may
see when it is read (`reaching`: how many, of which kinds). Names are compared as Python reads them
(NFKC, tests/test_ast_scopes.py). `python -m tests.test_ast_resolver PATH...`
runs the comparison over other files and prints every difference.
"""
from __future__ import annotations

import ast
import sys
import unicodedata
from collections import Counter

import libcst as cst
import pytest
from libcst.metadata import PositionProvider

from rewriter.analysis import ast_resolver, names
from rewriter.analysis.aliases import NO_ALIASES
from rewriter.analysis.ast_names import dotted as ast_dotted
from rewriter.cst_tree import branches

from tests.test_ast_scopes import _KINDS
from tests.harness.readings import compare_over, golden_differences
from tests.test_scopes import SYNTAX


# The fields of libcst nodes whose Names are no expression (ast has no Name there).
_NOT_EXPRESSIONS = {
    cst.Attribute: ("attr",), cst.Arg: ("keyword",), cst.FunctionDef: ("name",), cst.ClassDef: ("name",),
    cst.Param: ("name",), cst.ExceptHandler: ("name",), cst.ExceptStarHandler: ("name",), cst.MatchKeywordElement: ("key",), cst.MatchAs: ("name",),
    cst.MatchStar: ("name",), cst.MatchMapping: ("rest",),
}
_STATEMENTS_WITHOUT_EXPRESSIONS = (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)
_CONSTANTS = ("None", "True", "False")


def _cst_expressions(node: cst.CSTNode):
    """Every Name and Attribute of `node` that ast has as one."""
    if type(node) in _STATEMENTS_WITHOUT_EXPRESSIONS:
        return
    if type(node) in (cst.Name, cst.Attribute) and (names.dotted(node) or "").split(".")[0] not in _CONSTANTS:
        yield node
    skipped = [getattr(node, field) for field in _NOT_EXPRESSIONS.get(type(node), ())]
    for child in branches(node):
        if not any(child is s for s in skipped):
            yield from _cst_expressions(child)


def _answer(resolver, node, reaching) -> tuple:
    api = resolver.api(node)
    bindings = tuple(sorted(_KINDS.get(type(getattr(a, "node", None)), "other") for a in reaching))
    qualified = tuple(sorted(unicodedata.normalize("NFKC", q) for q in resolver.qualified_names(node)))
    return qualified, api.name if api else None, bindings


def differences(source: str, package: str = "") -> list[str]:
    module = cst.parse_module(source)
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    on_cst = names.NameResolver(wrapper, package, NO_ALIASES)
    tree = ast.parse(source)
    on_ast = ast_resolver.NameResolver(tree, package, NO_ALIASES)
    found_cst: Counter = Counter()
    for node in _cst_expressions(module):
        reaching = on_cst.reaching(node) if type(node) is cst.Name else ()
        text = unicodedata.normalize("NFKC", names.dotted(node) or "")
        found_cst[(positions[node].start.line, text, _answer(on_cst, node, reaching))] += 1
    found_ast: Counter = Counter()
    for node in ast.walk(tree):
        if type(node) in (ast.Name, ast.Attribute) and ast_dotted(node) is not None:
            reaching = on_ast.reaching(node) if type(node) is ast.Name else ()
            found_ast[(node.lineno, ast_dotted(node), _answer(on_ast, node, reaching))] += 1
    # (a chain through a call or a subscript has no dotted spelling: neither side counts it)
    found_cst = Counter({k: v for k, v in found_cst.items() if k[1]})
    out = []
    for key in sorted((found_cst - found_ast).keys() | (found_ast - found_cst).keys(), key=repr):
        if found_cst[key] != found_ast[key]:
            out.append(f"{key}: libcst {found_cst[key]}, ast {found_ast[key]}")
    return out


def test_every_construct_resolves_alike():
    assert differences(SYNTAX) == []


@pytest.mark.parametrize("source", [
    "import jax\nimport jax.numpy as jnp\nf = jax.jit(lambda x: jnp.sum(x))\n",
    "from phiml import math\nfrom phiml.math import jit_compile as jc\n@jc\ndef f(x):\n    return math.sin(x)\n",
    "from phi.flow import *\ny = math.jit_compile(f)\nmath = 1\n",
    "def step(x): return x\nstep = 1\nif c:\n    step = 2\nprint(step)\ndef g():\n    return step\n",
    "with a as step:\n    step = 3\nprint(step)\n",
])
def test_forms(source):
    assert differences(source) == []


def test_bindings_in_one_statement_reach_in_the_order_written():
    """A `with ... as s` and the bindings in its body are one statement of the block: the read after it
    sees the last one that certainly ran and the ones after it that may have (a nested `with` may not
    run its body), on every run (they were
    ordered as a set iterates, which differs from run to run)."""
    source = "with a as s:\n    with b as s:\n        pass\n    if c:\n        s = 3\nprint(s)\n"
    module = cst.parse_module(source)
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    on_cst = names.NameResolver(wrapper)
    read = module.body[-1].body[0].value.args[0].value
    tree = ast.parse(source)
    on_ast = ast_resolver.NameResolver(tree)
    for _ in range(20):
        assert sorted(positions[a.node].start.line for a in on_cst.reaching(read)) == [1, 2, 5]
        assert sorted(a.node.lineno for a in on_ast.reaching(tree.body[-1].value.args[0])) == [1, 2, 5]


def test_relative_imports_resolve_in_their_package():
    assert differences("from ..math import batch\nfrom . import util\nbatch(util.x)\n", package="pkg.sub") == []


def test_golden_cases_and_examples_resolve_alike():
    assert golden_differences(differences) == {}


if __name__ == "__main__":
    sys.exit(compare_over(sys.argv[1:], differences))
