"""rewriter.analysis.scopes answers what libcst's ScopeProvider answers, on every node the analysis may ask about.

Both are run on the same tree and compared: the scope of every node but whitespace, punctuation and
operators, which get none of ours (the same partition into scopes of the same kinds, opened by the same
nodes, nested alike), every scope's bindings (type, node, order) and
reads, the bindings each read may see and the reads each binding may be seen by, `name in scope`,
`scope[name]` and `get_qualified_names_for` of every name, attribute, call, decorator, subscript,
def, class and import. `python -m tests.test_scopes PATH...` runs the comparison over other files.
"""
from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import libcst as cst
import pytest
from libcst._metadata_dependent import LazyValue
from libcst.metadata import ScopeProvider

from rewriter.analysis.scopes import module_scopes
from rewriter.cst_tree import token_kinds, walk

ROOT = Path(__file__).resolve().parent.parent

# Every construct whose scoping has a rule of its own (and libcst's quirks, which ours must share).
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
SYNTAX_312 = '''
from typing import Literal
class Box[T: (int, "str"), *Ts, **P](Base[T]):
    type Alias[U] = list[U] | T
    def get[V](self, v: V) -> T | Box: return v
def free[T](x: T) -> T: return x
type Pair = tuple["Box", int]
'''

# Real files: a cheap subset that, with the golden cases, exercises in the wild every construct the full
# comparison over these packages met (string annotations and reads in strings, typing casts, TypeVar,
# NewType and Literal, dotted and relative imports and reads through them, star imports, global and
# nonlocal, walrus, match, del, closures, a read before a local binding, every comprehension kind, async).
REAL = {
    "diffrax": ["_path.py"],
    "equinox": ["internal/_loop/loop.py", "_module/_module.py"],
    "jax": ["_src/numpy/array_api_metadata.py", "_src/path.py", "_src/lib/triton.py", "_src/cloud_tpu_init.py",
            "_src/pallas/helpers.py"],
    "phi": ["math/extrapolation.py"],
    "phiml": ["parallel/_pgraph.py", "backend/_object.py"],
}


def _unlazy(value):
    return value() if isinstance(value, LazyValue) else value


class _Pairs:
    """libcst's scopes paired with ours: each of theirs stands for exactly one of ours."""

    def __init__(self) -> None:
        self.ours: dict[int, object] = {}
        self.theirs: dict[int, object] = {}
        self.number: dict[int, int] = {}  # id(our scope) -> a stable number for descriptions

    def pair(self, theirs, ours) -> bool:
        if theirs is None or ours is None:
            return theirs is None and ours is None
        if id(theirs) in self.ours:
            return self.ours[id(theirs)] is ours
        if id(ours) in self.theirs:
            return False
        if type(theirs).__name__ != type(ours).__name__ or getattr(theirs, "node", None) is not getattr(ours, "node", None) \
                or getattr(theirs, "name", None) != getattr(ours, "name", None) or theirs._name_prefix != ours._name_prefix:
            return False
        self.ours[id(theirs)] = ours
        self.theirs[id(ours)] = theirs
        self.number[id(ours)] = len(self.number)
        return self.pair(theirs.parent, ours.parent) and self.pair(theirs.globals, ours.globals)

    def both(self) -> list[tuple[object, object]]:
        return [(theirs, self.ours[id(theirs)]) for theirs in self.theirs.values()]

    def scope_key(self, scope, theirs: bool):
        ours = self.ours.get(id(scope)) if theirs else scope
        return self.number.get(id(ours), ("unpaired", type(scope).__name__, scope._name_prefix))


def _assignment_key(a, pairs: _Pairs, theirs: bool):
    return (type(a).__name__, a.name, id(getattr(a, "node", None)), id(getattr(a, "as_name", None)),
            a._index if theirs else a.index, pairs.scope_key(a.scope, theirs))


def _access_key(a, pairs: _Pairs, theirs: bool):
    return id(a.node), a._index if theirs else a.index, pairs.scope_key(a.scope, theirs)


def _qualified(names) -> set:
    return {(q.name, q.source.name) for q in names}


_ASKED = (cst.Name, cst.Attribute, cst.Call, cst.Decorator, cst.Subscript, cst.FunctionDef, cst.ClassDef,
          cst.Import, cst.ImportFrom, cst.ImportAlias, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
          cst.GeneratorExp, cst.SimpleString)


def differences(module: cst.Module) -> list[str]:
    """Where our scopes answer otherwise than libcst's on `module` (empty: nowhere)."""
    try:
        expected = cst.MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
    except Exception as error:  # libcst refuses some invalid code (`nonlocal` at module level): so must we
        try:
            module_scopes(module)
        except type(error):
            return []
        return [f"libcst raised {error!r}, we did not"]
    found = module_scopes(module)
    out: list[str] = []
    pairs = _Pairs()
    nodes = list(walk(module))
    for node in nodes:
        if type(node) in token_kinds():  # whitespace, punctuation, operators: no scope of ours (Scopes)
            if found.get(node) is not None:
                out.append(f"scope of {type(node).__name__} {_code(module, node)!r}: {type(found.get(node)).__name__} vs None")
            continue
        if not pairs.pair(_unlazy(expected.get(node)), found.get(node)):
            out.append(f"scope of {type(node).__name__} {_code(module, node)!r}: "
                       f"{type(_unlazy(expected.get(node))).__name__} vs {type(found.get(node)).__name__}")
    if out:
        return out[:20]
    for theirs, ours in pairs.both():
        where = f"{type(ours).__name__} {ours._name_prefix or '<module>'}"
        # the bindings of each name, and the reads each binding may be seen by
        t_assign = {n: s for n, s in theirs._assignments.items() if s}
        o_assign = {n: s for n, s in ours._assignments.items() if s}
        if type(ours).__name__ != "BuiltinScope" and set(t_assign) != set(o_assign):
            out.append(f"{where}: bound names {sorted(set(t_assign) ^ set(o_assign))}")
            continue
        for name in t_assign if type(ours).__name__ != "BuiltinScope" else set(t_assign) & set(o_assign):
            t = {_assignment_key(a, pairs, True): a for a in t_assign[name]}
            o = {_assignment_key(a, pairs, False): a for a in o_assign[name]}
            if set(t) != set(o):
                out.append(f"{where}: bindings of {name!r} {sorted(t)} vs {sorted(o)}")
                continue
            for key, a in t.items():
                if Counter(_access_key(r, pairs, True) for r in a.references) != \
                        Counter(_access_key(r, pairs, False) for r in o[key].references):
                    out.append(f"{where}: reads of the binding {key} of {name!r}")
                if _qualified(a.get_qualified_names_for(a.name)) != _qualified(o[key].get_qualified_names_for(a.name)):
                    out.append(f"{where}: qualified names of the binding {key} of {name!r}")
        # the reads of each name, and the bindings each may see
        t_reads = {n: s for n, s in theirs._accesses_by_name.items() if s}
        o_reads = {n: s for n, s in ours._accesses_by_name.items() if s}
        if set(t_reads) != set(o_reads):
            out.append(f"{where}: read names {sorted(set(t_reads) ^ set(o_reads))}")
            continue
        for name, accesses in t_reads.items():
            t = Counter((_access_key(a, pairs, True), frozenset(_assignment_key(r, pairs, True) for r in a.referents))
                        for a in accesses)
            o = Counter((_access_key(a, pairs, False), frozenset(_assignment_key(r, pairs, False) for r in a.referents))
                        for a in o_reads[name])
            if t != o:
                out.append(f"{where}: reads of {name!r} and what they see: {sorted(t - o)} vs {sorted(o - t)}")
    # what the analysis asks of a node, in the node's own scope
    for node in nodes:
        if not isinstance(node, _ASKED):
            continue
        theirs, ours = _unlazy(expected.get(node)), found.get(node)
        if theirs is None:
            continue
        what = _Described(module, node)
        if _qualified(theirs.get_qualified_names_for(node)) != _qualified(ours.get_qualified_names_for(node)):
            out.append(f"get_qualified_names_for({what}): {_qualified(theirs.get_qualified_names_for(node))} "
                       f"vs {_qualified(ours.get_qualified_names_for(node))}")
        name = cst.helpers.get_full_name_for_node(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if name is None:
            continue
        for spelled in {name, name.split(".")[0]}:
            if (spelled in theirs) != (spelled in ours):
                out.append(f"{spelled!r} in the scope of {what}")
            elif {_assignment_key(a, pairs, True) for a in theirs[spelled]} != {_assignment_key(a, pairs, False) for a in ours[spelled]}:
                out.append(f"scope[{spelled!r}] in the scope of {what}")
            if {_assignment_key(a, pairs, True) for a in theirs.assignments[spelled]} != \
                    {_assignment_key(a, pairs, False) for a in ours.assignments[spelled]} \
                    or {_access_key(a, pairs, True) for a in theirs.accesses[spelled]} != \
                    {_access_key(a, pairs, False) for a in ours.accesses[spelled]}:
                out.append(f"assignments/accesses of {spelled!r} in the scope of {what}")
    return out


class _Described:
    """A node as a mismatch names it; its code is generated only if one is reported."""

    def __init__(self, module: cst.Module, node: cst.CSTNode) -> None:
        self.module, self.node = module, node

    def __str__(self) -> str:
        return f"{type(self.node).__name__} {_code(self.module, self.node)!r}"


def _code(module: cst.Module, node: cst.CSTNode) -> str:
    try:
        return module.code_for_node(node)[:60]
    except Exception:
        return "?"


def _real_files() -> list[Path]:
    out = []
    for package, files in REAL.items():
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        root = Path(list(spec.submodule_search_locations)[0])
        out += [root / f for f in files if (root / f).exists()]
    return out


# libcst asks every call and subscript whether it names `typing.cast`, `typing.TypeVar`, `typing.Literal`...
# (then strings in it are code, or are not); ours asks only once some binding could make a name resolve
# to `typing.*`. Each of these modules opens that door in one way, with no other `typing` in the file.
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


def test_every_construct():
    assert differences(cst.parse_module(SYNTAX)) == []
    for source in TYPING_DOORS:
        assert differences(cst.parse_module(source)) == [], source


def test_type_parameters():
    module = cst.parse_module(SYNTAX_312, config=cst.PartialParserConfig(python_version="3.12"))
    assert differences(module) == []


@pytest.mark.slow  # seconds over whole corpora: `make test` runs it, `make check` does not
def test_golden_cases_examples_and_real_code():
    golden = [path for path in sorted(ROOT.glob("golden/**/*.py")) if not path.name.endswith(".expected.py")]
    paths = [*golden, *sorted(ROOT.glob("examples/*.py")), *_real_files()]
    assert len(paths) > 200
    failed = {}
    for path in paths:
        try:
            module = cst.parse_module(path.read_bytes())
        except cst.ParserSyntaxError:
            continue
        found = differences(module)
        if found:
            failed[str(path)] = found[:5]
    assert failed == {}


def test_invalid_code_is_refused_alike():
    assert differences(cst.parse_module("nonlocal x\n")) == []


if __name__ == "__main__":
    total = 0
    for argument in sys.argv[1:]:
        for path in sorted(Path(argument).rglob("*.py")) if Path(argument).is_dir() else [Path(argument)]:
            try:
                module = cst.parse_module(path.read_bytes())
            except Exception:
                continue
            found = differences(module)
            total += len(found)
            for line in found[:10]:
                print(f"{path}: {line}")
    print(f"{total} differences")
