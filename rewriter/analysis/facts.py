"""What the project index tells one file about the rest of the project (plain, hashable data).

The engine hands these to the analysis of the file (`Settings.project`); the cache keys a file's
result on them (`FileFacts.digest`), so a file is analysed again exactly when what other modules
tell it changes. Every fact names where it comes from (`train.py:41`): a message that rests on
another file says so.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class ParamFact:
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
    param: str
    kind: str  # "python" | "array" | "unknown"
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
class FileFacts:
    traces: tuple[RemoteTrace, ...] = ()
    calls: tuple[RemoteCall, ...] = ()
    factories: tuple[RemoteFactory, ...] = ()
    # Names of this file bound to a function of another module that returns a Python value whatever it is
    # passed (`_arraylike`: `isinstance(x, Array) or np.isscalar(x)`; summary.Function.returns_python and
    # python_if), and the dotted spellings of such functions it calls through a module (`checks.is_scalar`)
    python_results: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # the files these facts were read from

    def __bool__(self) -> bool:
        return bool(self.traces or self.calls or self.factories or self.python_results)

    def kinds(self) -> frozenset[str]:
        """Which of the facts a rule may need (`Codemod.PROJECT_FACTS`) are there: "traces", "factories"."""
        return frozenset(k for k, present in (("traces", self.traces), ("factories", self.factories)) if present)

    def digest(self) -> str:
        """A hash of the facts (not of the files they came from: an edit elsewhere that tells this file
        nothing new leaves its cached result valid)."""
        text = json.dumps(asdict(self), sort_keys=True, default=repr)
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
                   python_results=tuple(data["python_results"]), sources=tuple(data["sources"]))

    def calls_of(self, function: str) -> list[RemoteCall]:
        return [c for c in self.calls if c.function == function]

    def traces_of(self, function: str) -> list[RemoteTrace]:
        return [t for t in self.traces if t.function == function]

    def factory(self, name: str) -> RemoteFactory | None:
        return next((f for f in self.factories if f.name == name), None)
