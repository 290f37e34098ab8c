"""rewriter.analysis.ast_scopes: the scopes of a module read from CPython's `ast`.

Over a source: every read (its line, the name it reads, the scope it is in, the qualified names it
denotes and the bindings it may see, each by name, kind and scope, and a Name's by its line) and every
scope's bindings, with how often each occurs. The readings of every construct whose scoping has a rule of
its own (`SYNTAX`), of the targeted cases below, of the golden cases and examples, and of a few files of
the installed packages are recorded in tests/data/readings/ (tests/harness/readings.py): they are the
answers libcst's ScopeProvider gave, its quirks included (rewriter/analysis/scopes.py, deleted, answered
as it did, and tests/test_ast_scopes.py compared the two trees read by read until then; the project's own
source was compared too). Names are Python's (NFKC): a file that spells one name `µ` here and `μ` there
is one name to Python and to `ast` (libcst had two there: the one place `ast`'s reading was kept over
libcst's). `python -m tests.test_ast_scopes --record` writes the recordings again; `python -m
tests.test_ast_scopes PATH...` prints the reading of other files.
"""
from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from rewriter.analysis import ast_scopes
from rewriter.analysis.scope_model import Assignment, Scope

from tests.harness import readings

ROOT = Path(__file__).resolve().parent.parent

# Every construct whose scoping has a rule of its own (and libcst's quirks, which the reading keeps).
SYNTAX = '''
from __future__ import annotations
import os.path, a.b.c as abc, typing, typing as t
from typing import cast, Literal as L, NewType, TypeVar, Optional
from . import sibling
from ..pkg.mod import thing as other
from phi.flow import *
import collections.abc
__all__ = ["f", "C"]

T = TypeVar("T", bound="C")
UserId = NewType("UserId", "int")
x = cast("C", None)
y = cast(t.Optional["C"], x)
lit: L["not code"] = "not code"
opt = Optional["C"]
opt2 = typing.Optional["os.path"]
os.path.join(abc.d, collections.abc.Mapping, os.environ)
total = 0
counter = 0

@decorator(total)
def f(p: "C", /, q: int = total, *args: "T", r=(lambda: total)(), **kw) -> "C | None":
    global total
    total += p
    nonlocal_free = 1
    def g(s=nonlocal_free):
        nonlocal nonlocal_free
        nonlocal_free = s
        return [z for z in range(s) if (w := z)] + [w]
    del nonlocal_free
    return g

class C(Base, metaclass=Meta):
    attr = 1
    other = [attr for _ in range(3)]
    first = [a for a in attr]
    def method(self, v=attr) -> C:
        return attr, self.attr, super().method()
    @staticmethod
    def static(): return C
    class Inner:
        def deep(self): return attr

def h():
    try:
        import numpy as np, jax.numpy
    except ImportError as err:
        err = None
        raise
    with open(__file__) as fh, open(fh.name) as (gh, ih):
        for i, (j, *k) in enumerate(fh):
            print(i, j, k, np, jax.numpy.sin, jax)
        else:
            pass
    async def agen():
        async for item in aiter():
            yield item
        async with ctx() as c2:
            await c2
    match counter:
        case {"k": 1, **rest} | [1, *others] if others:
            print(rest)
        case Point(x=0, y=yy) as pt:
            print(pt, yy)
        case str() | None:
            pass
    gen = (u for u in (v for v in range(3)) for u2 in u)
    d = {key: value for key, value in {}.items()}
    s = {e for e in d}
    lam = lambda a, *b, c=counter, **d2: a + c
    return lam, gen, s

def late():
    print(before)
    before = 1
    print(before)
    [later := 1 for _ in ()]
    return later

print(f"{total!r:>{counter}}" "tail", ---counter, not total)
a = b = c3 = 1
a.attr = 2
a[b] = c3
(d4, [e4, *f4]) = 1, [2, 3]
with nothing: pass
for obj.attr in []: pass
del a.attr, b
print(sibling, other, thing, undefined_name, len, print.__doc__, None.__class__, "".join)
import a.b
a.b.c.d(), a.x, a.b().c.d, f(a.b).c, a[0].b, (a.b + c3).z, a.b[a.b.c].e

from typing_extensions import Literal as XL, Annotated
def annotated(p: "C" "| None", q: b"C", r: XL["x", "y"], s: Annotated[int, f("C")], t: "(w2 := C)",
              u: "not valid code (", v: Optional[t.List["C"]]) -> f"C":
    z: int
    zz: "C" = None

class Declares:
    global counter
    counter = 2
    def outer(self):
        value = 1
        class Local:
            nonlocal value
            value = 2
        return value

def typing():
    x = cast("C", 1)
    return x[0]

@f.register
def f(): pass

def raises():
    try:
        pass
    except* ValueError as group:
        print(group)
'''

# PEP 695, which needs Python 3.12 to parse.

FORMS = [
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
    "nonlocal x\n",  # (invalid, though `ast` parses it: refused, as libcst's ScopeProvider refused it)
]

# libcst asks every call and subscript whether it names `typing.cast`, `typing.TypeVar`, `typing.Literal`...
# (then strings in it are code, or are not); the reading asks only once some binding could make a name
# resolve to `typing.*`. Each of these modules opens that door in one way, with no other `typing` in the file.
# (The first two are recorded as `ast` reads them, which libcst did not: its walk read the `'C'` of
# `x['C']` as code, a read of `C`, where `typing` is a def or class of the module's own.)
TYPING_DOORS = [
    "def typing():\n    C = 1\n    x = {}\n    return x['C']\n",
    "class typing:\n    C = 1\n    x = {}\n    y = x['C']\n",
    "typing = {}\nC = 1\ntyping['C']\n",
    "import typing_extensions as te\nC = 1\nte.cast('C', 1)\n",
    "from typing import cast as c\nC = 1\nc('C', 1)\n",
    "from typing_extensions import Literal as L\nC = 1\nL['C']\n",
    "import typing.re\nC = 1\ntyping.cast('C', 1)\n",
    "from . import typing\nC = 1\ntyping.cast('C', 1)\n",
    "import numpy as typing\nC = 1\ntyping.cast('C', 1)\n",
]

MICRO = "def f():\n    \u00b5 = 1\n    return \u03bc\n"  # `µ` (micro sign) and `μ` (mu): one name to Python

# Real files: a cheap subset that, with the golden cases, exercises in the wild every construct the full
# comparison with libcst over these packages met (string annotations and reads in strings, typing casts,
# TypeVar, NewType and Literal, dotted and relative imports and reads through them, star imports, global
# and nonlocal, walrus, match, del, closures, a read before a local binding, every comprehension kind, async).
REAL = {
    "diffrax": ["_path.py"],
    "equinox": ["internal/_loop/loop.py", "_module/_module.py"],
    "jax": ["_src/numpy/array_api_metadata.py", "_src/path.py", "_src/lib/triton.py", "_src/cloud_tpu_init.py",
            "_src/pallas/helpers.py"],
    "phi": ["math/extrapolation.py"],
    "phiml": ["parallel/_pgraph.py", "backend/_object.py"],
}
_DISTRIBUTIONS = {"diffrax": "diffrax", "equinox": "equinox", "jax": "jax", "phi": "phiflow", "phiml": "phiml"}


def _nfkc(text: str) -> str:
    """A name as Python reads it (`ast` has identifiers NFKC-normalized already; a string annotation's
    names are too once parsed)."""
    return unicodedata.normalize("NFKC", text)


def _scope_key(scope: Scope) -> str:
    """`Function repeat_doubling.<locals>`: the scope's kind and the prefix of the names it qualifies."""
    prefix = _nfkc(scope._name_prefix)
    return type(scope).__name__.removesuffix("Scope") + (f" {prefix}" if prefix else "")


# A binding's node, by kind (the kinds libcst's nodes had too: what the recordings were compared on).
KINDS = {
    ast.arg: "parameter", ast.FunctionDef: "def", ast.AsyncFunctionDef: "def", ast.ClassDef: "class",
    ast.Import: "import", ast.ImportFrom: "import", ast.Name: "name", ast.ExceptHandler: "name",
}


def _line(node) -> int:
    return getattr(node, "lineno", -1)


def _binding(assignment, seen_from: Scope | None = None) -> str:
    """`x:name@14`: its name, its node's kind (a Name's line), the qualified names it gives where they are
    not the scope's own (`=jax.numpy`), and its scope where that is not `seen_from` (`in Global`)."""
    node = getattr(assignment, "node", None)
    kind = KINDS.get(type(node), type(node).__name__ if node is not None else "builtin")
    name = _nfkc(assignment.name)
    text = f"{name}:{kind}" + (f"@{_line(node)}" if kind == "name" else "")
    qualified = sorted(_nfkc(q.name) for q in assignment.get_qualified_names_for(assignment.name))
    prefix = _nfkc(assignment.scope._name_prefix)
    if qualified != [f"{prefix}.{name}" if prefix else name]:
        text += "=" + ",".join(qualified)
    return text + (f" in {_scope_key(assignment.scope)}" if assignment.scope is not seen_from else "")


def reading(source: str) -> list[str]:
    """Every read and every scope's bindings, one line each (sorted; `xN`: N times alike). A read: its
    line, its name, its scope, the qualified names it denotes (`->`) and the bindings it may see; a
    binding: its scope and `_binding`."""
    tree = ast.parse(source)
    try:
        scopes = ast_scopes.module_scopes(tree)
    except ast_scopes.NotCompilable as refused:  # (code CPython compiles not: refused as libcst refused it)
        return [f"refused: {refused.msg}"]
    found: Counter = Counter()
    for scope in set(scopes._by_id.values()):
        where = _scope_key(scope)
        for name, accesses in scope._accesses_by_name.items():
            for access in accesses:
                qualified = ",".join(sorted(_nfkc(q.name) for q in scope.get_qualified_names_for(access.node)))
                referents = "; ".join(sorted(_binding(a, scope) for a in access.referents))
                found[f"read {_line(access.node)} {_nfkc(name)} in {where} -> {qualified} sees [{referents}]"] += 1
        for name, assignments in scope._assignments.items():
            for assignment in assignments:
                if isinstance(assignment, Assignment):
                    found[f"binding in {where}: {_binding(assignment, scope)}"] += 1
    return sorted(key + (f" x{n}" if n > 1 else "") for key, n in found.items())


def _cases() -> dict[str, list[str]]:
    return readings.read_all([("SYNTAX", SYNTAX), ("MICRO", MICRO), *((repr(s), s) for s in FORMS + TYPING_DOORS)], reading)


def _golden() -> dict[str, list[str]]:
    return readings.read_all(readings.golden_and_examples(), reading)


def _installed() -> str:
    return ", ".join(f"{d} {importlib.metadata.version(d)}" for d in _DISTRIBUTIONS.values())


def _real_files() -> list[tuple[str, str]]:
    out = []
    for package, files in REAL.items():
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        root = Path(list(spec.submodule_search_locations)[0])
        out += [(f"{package}/{f}", (root / f).read_text(encoding="utf-8")) for f in files if (root / f).exists()]
    return out


def _real() -> dict[str, list[str]]:
    return {"installed": [_installed()], **readings.read_all(_real_files(), reading)}


RECORDINGS = {"scopes_cases": _cases, "scopes_golden": _golden, "scopes_installed": _real}


def _check(name: str, found: dict[str, list[str]], only: list[str] | None = None) -> None:
    readings.check(name, found, "tests.test_ast_scopes", only)


def test_every_construct_reads_as_recorded():
    _check("scopes_cases", {"SYNTAX": reading(SYNTAX)}, ["SYNTAX"])
    assert len(reading(SYNTAX)) > 200


@pytest.mark.parametrize("source", FORMS + TYPING_DOORS)
def test_forms(source):
    _check("scopes_cases", {repr(source): reading(source)}, [repr(source)])


def test_names_are_read_as_python_reads_them():
    """`µ` (micro sign) and `μ` (mu) are one name: the read finds the binding (libcst found it unbound)."""
    function = ast_scopes.module_scopes(tree := ast.parse(MICRO))[tree.body[0].body[0].targets[0]]
    (read,) = function.accesses["\u03bc"]
    assert [a.node.lineno for a in read.referents] == [2]
    _check("scopes_cases", {"MICRO": reading(MICRO)}, ["MICRO"])


def test_the_recorded_cases_are_all_asked():
    assert readings.recorded("scopes_cases").keys() == _cases().keys()


def test_golden_cases_and_examples_read_as_recorded():
    found = _golden()
    _check("scopes_golden", found)
    assert len(found) > 200


def test_installed_packages_read_as_recorded():
    recorded = readings.recorded("scopes_installed")
    if recorded["installed"] != [_installed()]:
        pytest.skip(f"recorded on {recorded['installed'][0]}, installed: {_installed()}")
    _check("scopes_installed", _real())


if __name__ == "__main__":
    sys.exit(readings.main("tests.test_ast_scopes", RECORDINGS, reading))


def _answers(source: str, references_first: bool) -> list[str]:
    """Every binding's reads and every read's bindings, asked in one of two orders: the scopes find
    both when first asked (scope_model.resolve_reads), so the order must not change them."""
    try:
        scopes = ast_scopes.module_scopes(ast.parse(source))
    except ast_scopes.NotCompilable:
        return ["refused"]
    every = set(scopes._by_id.values())
    every |= {s.parent for s in every}
    key = lambda node: f"{type(node).__name__}@{getattr(node, 'lineno', '?')}:{getattr(node, 'col_offset', '?')}"  # noqa: E731
    reads = [a for s in every for accesses in s._accesses_by_name.values() for a in accesses]
    bindings = [b for s in every for found in s._assignments.values() for b in found]

    def seen_by() -> list[str]:
        return [f"{b.name} {key(getattr(b, 'node', None))} seen by {[key(r.node) for r in b.references]}" for b in bindings]

    def sees() -> list[str]:
        return [f"{key(r.node)} {r.name} sees {[(a.name, key(getattr(a, 'node', None))) for a in r.referents]}" for r in reads]

    out = seen_by() + sees() if references_first else sees()[::-1] + seen_by()
    return sorted(out)


@pytest.mark.parametrize("source", [SYNTAX, *FORMS], ids=lambda s: s.strip().splitlines()[0][:40])
def test_reads_and_bindings_are_found_alike_in_any_order(source):
    assert _answers(source, True) == _answers(source, False)


def test_each_binding_knows_the_reads_that_see_it():
    """`references` (not in the recorded readings, which list what each read sees): the reads each
    binding is seen by, a dotted import's by the chain it covers, a class body's read of its own name
    before binding it by the module's."""
    source = "import a.b\nv = 1\ndef f():\n    v = 2\n    return v, a.b.c\nprint(v)\nclass C:\n    v = v\n" \
             "    def m(self):\n        return v\n"
    scopes = ast_scopes.module_scopes(ast.parse(source))
    every = set(scopes._by_id.values())
    every |= {s.parent for s in every}
    for binding in next(iter(scopes._by_id.values())).globals._assignments["v"]:
        binding.references  # (a builtin's binding is made when a read of it is first resolved: now, for every read)
    found = sorted(f"{b.name}@{getattr(getattr(b, 'node', None), 'lineno', '-')} <- {[r.node.lineno for r in b.references]}"
                   for s in every for bindings in s._assignments.values() for b in bindings)
    assert found == ["C@7 <- []", "a.b@1 <- [5]", "a@1 <- []", "f@3 <- []", "m@9 <- []", "print@- <- [6]", "self@9 <- []",
                     "v@2 <- [6, 8, 10]", "v@4 <- [5]", "v@8 <- []"]


def test_the_builtin_scope_holds_what_the_builtins_module_has():
    """A name is a builtin exactly when `hasattr(builtins, name)`: every builtin, a module's dunders
    (`__name__`, and `__class__`, an attribute of the module's type), and none of the others."""
    import builtins

    from rewriter.analysis.scope_model import GlobalScope

    scope = GlobalScope().parent
    names = [*vars(builtins), "__class__", "__dict__", "__init__", "__unknown__", "x", "jnp", "_", "__", "self"]
    assert [name in scope for name in names] == [hasattr(builtins, name) for name in names]
    assert "__class__" in scope and "__unknown__" not in scope and "x" not in scope
