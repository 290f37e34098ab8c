"""What the project index tells one file about the rest of the project (plain, hashable data).

The engine hands these to the analysis of the file (`Settings.project`); the cache keys a file's
result on them (`FileFacts.digest`), so a file is analysed again exactly when what other modules
tell it changes. Every fact names where it comes from (`train.py:41`): a message that rests on
another file says so.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields, is_dataclass

from .aliases import NO_ALIASES, Aliases


@dataclass(frozen=True)
class ParamFact:
    """What other modules say of one parameter of a function here (traced, static or unknown), and why."""
    name: str
    trace: str  # "traced" | "static" | "unknown"
    why: str  # the reason chain, for explanations: "`u`: parameter of `step` (train.py:9), traced by `jax.jit`"
    # Where the tracer starts, in another module: the jit function's def (a related location of findings)
    path: str = ""
    line: int = 0
    origin: str = ""  # what happens there: "`step` is traced by `jax.jit` here"


@dataclass(frozen=True)
class RemoteTrace:
    """A function of this file traced from another module."""

    function: str  # its name in this file: `limiter`, or `make.f` for the def a factory returns
    how: str  # "called": from a traced function elsewhere; "wrapped": a jit applied to it elsewhere
    api: str  # the jit transform's canonical name (`jax.jit`)
    caller: str  # the traced function elsewhere, or the wrapper's name (`step`)
    where: str  # `train.py:12`
    params: tuple[ParamFact, ...] = ()  # "called": what the traced callers pass, joined
    static: tuple[str, ...] | None = None  # "wrapped": the parameters the application keeps static (None: unreadable)


@dataclass(frozen=True)
class RemoteArg:
    """One argument a call in another module passes to a function here, classified as the summary reads it."""
    param: str
    kind: str  # "python" | "none" (the literal `None`) | "array" | "unknown"
    value: object = None  # the Python literal, when known


@dataclass(frozen=True)
class RemoteCall:
    """A call, in another module, of a jitted function whose def is in this file."""

    function: str  # the def's name in this file
    where: str  # `train.py:41`
    args: tuple[RemoteArg, ...]  # one per parameter it passes
    complete: bool = True  # False: `*args`/`**kwargs`, or arguments that do not bind


@dataclass(frozen=True)
class RemoteFactory:
    """A name of this file bound to a function of another module that builds a new function per call."""

    name: str  # the local name (`make_step`)
    jit_api: str  # the jit transform of the function it returns ("" : a plain new def or lambda)
    framework: str
    where: str  # the factory's def: `physics.py:20`
    function: str  # the factory's name where it is defined
    path: str = ""  # the file of that def, as the index found it (a related location's)
    line: int = 0


@dataclass(frozen=True)
class Reexport:
    """A module of the project that re-exports an installed module whole (`from phiml.math import *` in
    its `__init__.py`, as PhiFlow's `phi/math` does): `module.x` is `installed.x` for every name `x` but
    those it binds itself (`own`) and its submodules."""

    module: str
    installed: str
    own: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileFacts:
    """What the rest of the project tells one file: the traces, calls and factories that reach it from other modules."""
    traces: tuple[RemoteTrace, ...] = ()
    calls: tuple[RemoteCall, ...] = ()
    factories: tuple[RemoteFactory, ...] = ()
    # Names of this file bound to a function of another module that returns a Python value whatever it is
    # passed (`_arraylike`: `isinstance(x, Array) or np.isscalar(x)`; summary.Function.returns_python and
    # python_if), and the dotted spellings of such functions it calls through a module (`checks.is_scalar`)
    python_results: tuple[str, ...] = ()
    # What the names this file imports from modules of the project denote, where those modules re-export
    # them from outside the project (analysis/aliases.py): (absolute name as the file's imports spell it,
    # what it denotes: `mypkg.math.batch` -> `phiml.math.batch`), for the names it imports and the
    # attributes it reads through an imported module; and the imported modules that re-export an
    # installed one whole. A name of a module the file star-imports may be aliased to itself: the
    # project's own, not what an earlier star import binds.
    aliases: tuple[tuple[str, str], ...] = ()
    reexports: tuple[Reexport, ...] = ()
    # Absolute names (as its imports spell them) of classes defined elsewhere in the project: a call of
    # one makes an object, never an array (analysis/forms.py)
    classes: tuple[str, ...] = ()
    # Those of them with properties that return a shape read (`dim`: `self.pos.shape[-1]`), with their names:
    # a Python value under any transform (annotations.shape_properties)
    shape_properties: tuple[tuple[str, tuple[str, ...]], ...] = ()
    sources: tuple[str, ...] = ()  # the files these facts were read from

    def __bool__(self) -> bool:
        return bool(self.traces or self.calls or self.factories or self.python_results or self.aliases
                    or self.reexports or self.classes)

    def alias_map(self) -> Aliases:
        """The aliases as the name resolution reads them (analysis/aliases.py)."""
        if not (self.aliases or self.reexports):
            return NO_ALIASES
        return Aliases(dict(self.aliases), {r.module: (r.installed, frozenset(r.own)) for r in self.reexports})

    def kinds(self) -> frozenset[str]:
        """Which of the facts a rule may need (`Codemod.PROJECT_FACTS`) are there: "traces", "factories";
        and "renames" when an alias gives an API of the table under another name (`compile_fn = jit_compile`
        in a module of the project): the file's words need not spell the API then (engine.enabled_by_project)."""
        found = {k for k, present in (("traces", self.traces), ("factories", self.factories)) if present}
        if self.renames_an_api():
            found.add("renames")
        return frozenset(found)

    def widens_a_gate(self) -> bool:
        """The aliases may make a pre-filter gate find more than it finds without them (Survey.passed_with):
        a module re-exporting an installed one whole, or an alias that does not only narrow (apis.only_narrows:
        NumPy's functions and the like, which the gates read as static, never as a tracer or an API)."""
        from .apis import only_narrows

        return bool(self.reexports) or not all(only_narrows(target) for _, target in self.aliases)

    def aliases_reach_no_api(self) -> bool:
        """No alias is named or gives an API of the table, `functools.partial` included, or a name under
        which one may be spelled (apis.reaches), and no module re-exports an installed one whole: the
        aliases change what some names denote, never which of the file's names may start an API's
        spelling (apis.reaching_roots) nor which API a spelling denotes (apis.spelled_apis: none, with
        or without them)."""
        from .apis import reaches

        return not self.reexports and not any(reaches(key, partial=True) or reaches(target, partial=True)
                                              for key, target in self.aliases)

    def renames_an_api(self) -> bool:
        """Some alias gives an API of the table (apis.py) under a last name that is not the API's own."""
        from .apis import lookup

        return any(key.rpartition(".")[2] != target.rpartition(".")[2] and lookup(target) is not None
                   for key, target in self.aliases)

    def digest(self) -> str:
        """A hash of the facts (not of the files they came from: an edit elsewhere that tells this file
        nothing new leaves its cached result valid)."""
        text = json.dumps(self, sort_keys=True, default=_plain)
        return hashlib.sha256(text.encode()).hexdigest()

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "FileFacts":
        """The inverse of `to_json` (the literals a fact holds are JSON literals: summary.py keeps no others)."""
        def trace(d: dict) -> RemoteTrace:
            static = d["static"]
            return RemoteTrace(**{**d, "params": tuple(ParamFact(**p) for p in d["params"]),
                                  "static": tuple(static) if static is not None else None})

        return cls(traces=tuple(trace(t) for t in data["traces"]),
                   calls=tuple(RemoteCall(**{**c, "args": tuple(RemoteArg(**a) for a in c["args"])}) for c in data["calls"]),
                   factories=tuple(RemoteFactory(**f) for f in data["factories"]),
                   python_results=tuple(data["python_results"]),
                   aliases=tuple(tuple(pair) for pair in data.get("aliases", ())),
                   reexports=tuple(Reexport(r["module"], r["installed"], tuple(r["own"])) for r in data.get("reexports", ())),
                   classes=tuple(data.get("classes", ())),
                   shape_properties=tuple((name, tuple(props)) for name, props in data.get("shape_properties", ())),
                   sources=tuple(data["sources"]))

    def calls_of(self, function: str) -> list[RemoteCall]:
        return [c for c in self.calls if c.function == function]

    def traces_of(self, function: str) -> list[RemoteTrace]:
        return [t for t in self.traces if t.function == function]

    def factory(self, name: str) -> RemoteFactory | None:
        return next((f for f in self.factories if f.name == name), None)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _plain(value) -> object:
    """json's `default` for `FileFacts.digest`: a fact as the dict of its fields, which is what `asdict`
    gives without its deep copy of every value (a warm run digests every file's facts: asdict was most
    of that); anything else by its repr."""
    names = _FIELD_NAMES.get(type(value))
    if names is None:
        if not is_dataclass(value):
            return repr(value)
        names = _FIELD_NAMES[type(value)] = tuple(f.name for f in fields(value))
    return {name: getattr(value, name) for name in names}
