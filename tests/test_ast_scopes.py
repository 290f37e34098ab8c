"""rewriter.analysis.ast_scopes answers on CPython's `ast` what rewriter.analysis.scopes answers on libcst.

Both walks run on the same source and are compared read by read: every read (by its line and the name
it reads) must be in a scope of the same kind and name, see bindings of the same names and kinds, and
denote the same qualified names; every scope must bind the same names. Names are compared as Python
reads them (NFKC): a file that spells one name `µ` here and `μ` there (jax-cfd does) is one name to
Python and to `ast`, two to libcst, so there the `ast` reading is the right one. `python -m tests.test_ast_scopes
PATH...` runs the comparison over other files and prints every difference.
"""
from __future__ import annotations

import ast
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import PositionProvider

from rewriter.analysis import ast_scopes, scopes
from rewriter.analysis.scope_model import Assignment, Scope

from tests.harness.readings import compare_over, sources
from tests.test_scopes import SYNTAX

ROOT = Path(__file__).resolve().parent.parent

# What libcst and `ast` place differently, beyond the nodes that stand for a binding (the module's
# docstring): a binding's node is compared by kind, and its line only where both trees have a Name.
_KINDS = {
    cst.Param: "parameter", ast.arg: "parameter",
    cst.FunctionDef: "def", ast.FunctionDef: "def", ast.AsyncFunctionDef: "def",
    cst.ClassDef: "class", ast.ClassDef: "class",
    cst.Import: "import", ast.Import: "import", cst.ImportFrom: "import", ast.ImportFrom: "import",
    cst.Name: "name", ast.Name: "name", ast.ExceptHandler: "name",  # (`except E as e`: libcst's Name, ast's handler)
}


def _nfkc(text: str) -> str:
    """A name as Python reads it: `ast` has identifiers NFKC-normalized (`µ` is `μ`), libcst as written."""
    return unicodedata.normalize("NFKC", text)


def _scope_key(scope: Scope) -> tuple[str, str]:
    return type(scope).__name__, _nfkc(scope._name_prefix)


def _binding(assignment, line_of) -> tuple:
    node = getattr(assignment, "node", None)
    kind = _KINDS.get(type(node), type(node).__name__ if node is not None else "builtin")
    line = line_of(node) if kind == "name" else None
    qualified = tuple(sorted(_nfkc(q.name) for q in assignment.get_qualified_names_for(assignment.name)))
    return _nfkc(assignment.name), kind, line, qualified, _scope_key(assignment.scope)


def _reading(all_scopes: set, line_of) -> tuple[Counter, Counter]:
    """(every read: its line, name, scope, the qualified names it denotes and the bindings it sees;
    every scope's bindings by name)."""
    reads: Counter = Counter()
    bound: Counter = Counter()
    for scope in all_scopes:
        for name, accesses in scope._accesses_by_name.items():
            for access in accesses:
                qualified = tuple(sorted(_nfkc(q.name) for q in scope.get_qualified_names_for(access.node)))
                referents = tuple(sorted(_binding(a, line_of) for a in access.referents))
                reads[(line_of(access.node), _nfkc(name), _scope_key(scope), qualified, referents)] += 1
        for name, assignments in scope._assignments.items():
            for assignment in assignments:
                if isinstance(assignment, Assignment):
                    bound[(_scope_key(scope), _binding(assignment, line_of))] += 1
    return reads, bound


def differences(source: str) -> list[str]:
    """What the two walks read differently in `source` (empty: the same)."""
    module = cst.parse_module(source)
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    on_cst = scopes.module_scopes(module)
    tree = ast.parse(source)
    on_ast = ast_scopes.module_scopes(tree)

    def cst_line(node):
        return positions[node].start.line if node in positions else -1

    def ast_line(node):
        return getattr(node, "lineno", -1)

    # A string annotation's reads are recorded on the string (a node of the file); its own tree's
    # nodes are in neither position table, and have no line to compare.
    cst_reads, cst_bound = _reading(set(on_cst._by_id.values()), cst_line)
    ast_reads, ast_bound = _reading(set(on_ast._by_id.values()), ast_line)
    out = []
    for what, a, b in (("read", cst_reads, ast_reads), ("binding", cst_bound, ast_bound)):
        for key in sorted((a - b).keys() | (b - a).keys(), key=repr):
            if a[key] != b[key]:
                out.append(f"{what} {key}: libcst {a[key]}, ast {b[key]}")
    return out


def test_every_construct_reads_alike():
    assert differences(SYNTAX) == []


@pytest.mark.parametrize("source", [
    "import os.path\nos.path.join(os.sep)\n",
    "x = 1\ndef f():\n    global x\n    x = 2\n    return x\n",
    "def f(a, /, b=1, *c, d: 'int', e=2, **g) -> 'C':\n    return a, b, c, d, e, g\nclass C: pass\n",
    "d = {k: v for k, v in {1: 2}.items() if (w := k)}\nprint(w, {**d, 'a': d})\n",
    "try:\n    pass\nexcept ValueError as e:\n    print(e)\n",
    "with open('f') as (a, b), open('g') as c:\n    print(a, b, c)\n",
    "match p:\n    case Point(x=0, y=yy) | [1, *rest] | {'k': v, **more} as whole:\n        print(yy, rest, v, more, whole)\n",
    "from typing import cast, Optional\nx = cast('Optional[int]', None)\ny: Optional['x'] = None\nz = f'{x!r:>{y}}'\n",
    # typing's names under other names: each call and subscript that may be typing's is resolved
    "from typing import cast as C, TypeVar as TV\nT = TV('T', bound='int')\nx = C('Optional[T]', None)\n",
    "import typing as t\nx = t.cast('List[int]', [])\ny: t.Optional['x'] = None\nz = t.NewType('Z', 'int')\n",
    "import typing\ndef f():\n    from typing import cast as c, Literal as L\n    return c('Optional[int]', None), L['a']\n",
    "from typing import Optional as O\nimport typing\ntyping = object()\nx = typing.cast('O[int]', None)\ny = O['x']\n",
    "import typing.re as tr\nfrom typing_extensions import cast\nx = cast('int', tr)\n",
    "v = a if (a := 1) else b\nf(x, key=y, *z, **w)\n",
    "[y for x in xs for y in x if y for z in y]\nclass K:\n    n = 1\n    m = [n for _ in range(n)]\n",
])
def test_forms(source):
    assert differences(source) == []


def test_names_are_read_as_python_reads_them():
    """The one place the readings differ, and `ast`'s is Python's: `µ` (micro sign) and `μ` (mu) are one
    name. libcst finds the read unbound; the `ast` walk finds the binding."""
    source = "def f():\n    \u00b5 = 1\n    return \u03bc\n"
    function = ast_scopes.module_scopes(tree := ast.parse(source))[tree.body[0].body[0].targets[0]]
    (read,) = function.accesses["\u03bc"]
    assert [a.node.lineno for a in read.referents] == [2]
    assert len(differences(source)) == 2  # libcst: a read of a name nothing binds


def test_golden_cases_examples_and_our_source_read_alike():
    """Every golden case and example (and the project's own source: large, and every construct)."""
    trees = [str(ROOT / folder) for folder in ("golden", "examples", "rewriter")]
    found = {str(path.relative_to(ROOT)): diff[:3] for path, source in sources(trees) if (diff := differences(source))}
    assert found == {}


if __name__ == "__main__":
    sys.exit(compare_over(sys.argv[1:], differences))
