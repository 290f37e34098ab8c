"""The values the traced-value analysis (ast_flow.py) computes: the lattice, how values join, and what
one function's flow records. Nothing here reads a tree: a derivation's step holds a node (an `ast` node,
or a Span where `ast` places none: a name a `global` declares), and asks `Lines` where it is. The rules
read the flows of ast_flow.TracedAnalysis (AstFile.traced), keyed by `ast`'s nodes.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..findings import Related
from .callsites import ParamRole
from .jit_contexts import JitContext
from .static_names import JAX_PRIMITIVES, JAX_STAGED, STATIC_MODULES


class Trace(enum.IntEnum):
    STATIC = 0
    UNKNOWN = 1
    TRACED = 2


class Step:
    """One step of a derivation that happens at a place of the file: a traced parameter, an assignment.
    A finding quotes its `label` in the message (`y`) and shows `place` at `node` as a related location
    (`y` is assigned here): see `Value.derivation`. explain-trace, an explanation rather than a finding,
    prints it with its line when it has `lines` (where the tree's nodes are: the position is looked up only
    then, a pass over the file paid only by files with something to report), else `place`."""

    __slots__ = ("label", "place", "node", "lines", "elsewhere")

    def __init__(self, label: str, place: str, node: Any, lines: "Lines | None" = None,
                 elsewhere: Related | None = None) -> None:
        self.label, self.place, self.node, self.lines = label, place, node, lines
        self.elsewhere = elsewhere  # a place in another module the step comes from (the project index)

    def __str__(self) -> str:
        if self.elsewhere is not None:
            return f"{self.place} ({self.elsewhere.shown_path}:{self.elsewhere.span.line})"
        if self.lines is None:
            return self.place
        return f"{self.label} ({self.lines.label(self.node)})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Step) and self.label == other.label and self.place == other.place and self.node is other.node

    def __hash__(self) -> int:
        return hash((self.label, self.place, id(self.node)))


class Lines(Protocol):
    """Where a node of the analysed tree is, as a step prints it (`line 12`, or a notebook cell's label)."""

    def label(self, node: Any) -> str: ...


@dataclass(frozen=True)
class Value:
    """What the traced-value analysis knows of an expression (traced, static or unknown), and why."""
    trace: Trace
    why: tuple = ()  # the derivation, source first (str or Step): what makes it traced (or unknown)
    # traced parameters it derives from, as (id of the directly jitted function, parameter name)
    sources: frozenset[tuple[int, str]] = frozenset()
    # STATIC values whose Python truth is known while tracing: `x.available` of a tracer is False
    # (so `x.available and (x > 0).any` never evaluates its right side under jit)
    const: bool | None = None
    # Fields of the value class it is declared as that hold Python values (under filter_jit:
    # annotations.py); kept by calls that keep a pytree's structure (`eqx.tree_at`), dropped by all else
    fields: frozenset[str] = frozenset()
    # A list, tuple, set or dict built in the function (a display, a comprehension, a pytree's leaves):
    # its length and its truth are Python values while tracing, whatever its elements are. Kept where
    # it is the same object (a name bound to it, a helper's parameter or result, `xs.append(v)`),
    # dropped by every operation on it
    container: bool = False
    # Made by a staged operation (a jax operation, which gives a tracer under jit even of constants):
    # a tracer whatever its sources are, so declaring them static does not make it a Python value (PML204)
    staged: bool = False
    # Derived through a concretization (`int(x)`, `x.item()`) of a parameter calls pass arrays to: the
    # conversion itself raises under jit (or reads the value once), so a selection of the result fixes nothing
    concretized: bool = False
    # A PhiML `Shape` (`x.shape`, `batch(x)`, `a & b` of Shapes, `s.without('x')`, a parameter declared
    # `Shape`): a Python object while tracing whatever tensors it was read from, its truth (has it any
    # dimension?) and sizes included; its Shape-valued attributes and methods give Shapes again, whatever
    # their arguments (static_names.SHAPE_CALLS, SHAPE_ATTRIBUTES, SHAPE_METHODS). Always STATIC.
    shape: bool = False
    # A dict display with constant keys (`{"steps": 10, "dt": dt}`): (key, value) of each entry, so that
    # `d["steps"]` reads its own entry, not the join of all. Kept where `container` is; dropped by every
    # operation on it (`d[k] = v` and a method call given a tracer join, which drops it)
    entries: tuple = ()

    @property
    def traced(self) -> bool:
        return self.trace is Trace.TRACED

    @property
    def static(self) -> bool:
        return self.trace is Trace.STATIC

    def via(self, step, same_object: bool = False, same_container: bool = False) -> "Value":
        """Derived from this value by `step`; `same_object`: it is this very object (a name bound to it);
        `same_container`: a container stays one (a helper's parameter or result is the object passed or returned)."""
        if self.trace is Trace.STATIC:
            return self if self.const is None else STATIC
        kept = same_object or same_container
        return Value(self.trace, (*self.why, step)[-6:], self.sources, fields=self.fields if same_object else frozenset(),
                     container=self.container and kept, staged=self.staged,
                     concretized=self.concretized, entries=self.entries if kept else ())

    def explain(self) -> str:
        """The derivation, each step with its line (`y` (line 12)): for explain-trace, never a finding."""
        return " -> ".join(map(str, self.why)) if self.why else "a Python value at trace time"

    def derivation(self) -> tuple[str, list[tuple[Any, str] | Related]]:
        """The derivation as a finding shows it: the steps without line numbers (`x` -> `y` -> `.any`),
        and the places of those that have one, as `Codemod.report(related=...)` takes them: the traced
        parameter (`x`: parameter of `f`, traced by `jax.jit`, ...), each assignment (`y` is assigned here)."""
        if not self.why:
            return "a Python value at trace time", []
        text = " -> ".join(s.label if isinstance(s, Step) else s for s in self.why)
        places: dict = {}
        for s in self.why:
            if isinstance(s, Step):
                if s.elsewhere is not None:
                    places[(s.elsewhere.path, s.elsewhere.span)] = s.elsewhere
                places[id(s.node)] = (s.node, s.place)
        return text, list(places.values())


STATIC = Value(Trace.STATIC)
STATIC_CONTAINER = Value(Trace.STATIC, container=True)  # `xs = []`: a list, of Python values so far
SHAPE = Value(Trace.STATIC, shape=True)  # a PhiML Shape
FALSE_WHILE_TRACING = Value(Trace.STATIC, const=False)


def contained(value: Value) -> Value:
    """`value` as a container's (`Value.container`): its elements' join, whose length and truth are static."""
    if value.container:
        return value
    if value.trace is Trace.STATIC:
        return STATIC_CONTAINER
    return Value(value.trace, value.why, value.sources, container=True, staged=value.staged, concretized=value.concretized)


def truth(value: Value) -> Value:
    """What `bool(x)` gives for a value `x` of this kind: a container's truth is its length's."""
    return STATIC if value.container else value


def element_of(value: Value) -> Value:
    """What iterating or unpacking `value` gives: its value, but no container (`for y in [x, 1]`: `y` is `x` or 1)."""
    return join(value) if value.container else value


def merge(*values: Value) -> Value:
    """The value a name has where branches that bound it differently meet, or that of `a and b` (one of
    the two objects): `join`, but a container if one branch bound a container and every other one a
    container or a Python value (`None`, a tree definition), whose truth and length are Python values too."""
    if values and values[0].entries and all(v is values[0] for v in values):
        return values[0]  # the same dict on every path: its entries still hold
    joined = join(*values)
    if any(v.container for v in values) and all(v.container or v.static for v in values):
        return contained(joined)
    return joined


def join(*values: Value) -> Value:
    """The value that may be any of `values` (branches that merge) or derives from all of them
    (never a container: `merge` keeps that where the value is one object)."""
    top = STATIC
    sources: set[tuple[int, str]] = set()
    staged = concretized = False
    for v in values:
        if v.trace > top.trace:
            top = v
        sources |= v.sources
        staged = staged or v.staged and v.trace is not Trace.STATIC
        concretized = concretized or v.concretized and v.trace is not Trace.STATIC
    if top.trace is Trace.STATIC:
        return SHAPE if values and all(v.shape for v in values) else STATIC  # (`a & b` of two Shapes is one)
    fields = frozenset.intersection(*(v.fields for v in values)) if values else frozenset()
    return Value(top.trace, top.why, frozenset(sources), fields=fields, staged=staged, concretized=concretized)


def staged(value: Value) -> Value:
    """`value` as the result of a staged operation: a tracer under jit whatever its sources are."""
    if value.trace is Trace.STATIC or value.staged:
        return value
    return Value(value.trace, value.why, value.sources, fields=value.fields, container=value.container, staged=True,
                 concretized=value.concretized)


# jax primitives whose function arguments run traced: every parameter of those functions is a tracer.
PRIMITIVES = JAX_PRIMITIVES
PRIMITIVE_NAMES = frozenset(n.rsplit(".", 1)[1] for n in PRIMITIVES)
ARRAY_LIBRARIES = ("phiml.math.", "jax.numpy.", "torch.", "tensorflow.")
# The most function analyses one module gets (roots, then helpers again whenever their call sites pass more).
MAX_ANALYSES = 50
# Helpers read inside helpers this deep at most; a call below that is "cannot tell".
MAX_HELPER_DEPTH = 3


@dataclass
class FunctionFlow:
    """The result of analysing one traced function."""

    context: JitContext
    framework: str
    params: dict[str, Value]
    tests: dict[int, Value] = field(default_factory=dict)  # id(test/iter expression) -> value there
    envs: dict[int, dict[str, Value]] = field(default_factory=dict)  # id(test/iter) -> the names' values there
    # Parameters that are configuration, not data (declared bool/int/str, defaulted to such a literal,
    # or passed only Python values by the calls in this module): a traced condition that derives only
    # from them is fixed by declaring them static (PML204), never by a selection or a loop primitive.
    config: dict[str, ParamRole] = field(default_factory=dict)
    calls: list = field(default_factory=list)  # (callee Name, Call, argument values): module helpers it calls
    bound: dict[str, Value] = field(default_factory=dict)  # every local name, joined over all its bindings
    nodes: list | None = None  # control-flow nodes and calls of its own body, in order (filled by the codemods)
    bodies: list = field(default_factory=list)  # functions it hands to a jax loop/branch primitive: (expr, api)

    def value_of(self, node: Any) -> Value | None:
        return self.tests.get(id(node))


def transform_static_default(context: JitContext) -> bool:
    """`jit_compile_linear` without `auxiliary_args`: every parameter after the first is auxiliary."""
    return context.transform.keyword("auxiliary_args") is None


def jax_operation(qualified: set[str]) -> bool:
    """The callee is a jax operation: its result is staged out under jit, a tracer even of Python values."""
    return bool(qualified) and all(q.startswith(JAX_STAGED) for q in qualified)


def static_module(qualified: set[str]) -> bool:
    """The callee belongs to a module whose functions return Python values, never a tracer (NumPy raises on
    one; jax's tracing machinery returns jaxprs, avals and tree definitions)."""
    return bool(qualified) and all(q.startswith(STATIC_MODULES) for q in qualified)


def value_key(values: dict[str, Value]) -> tuple:
    """What of these values a function's result depends on, by name: trace, container, static fields,
    and a constant (`pick(x.available, x)` reads `a and ...` as False while tracing; `pick(True, x)` not)."""
    return tuple(sorted((k, v.trace, v.container, v.shape, tuple(sorted(v.fields)), repr(v.const)) for k, v in values.items()))


def leaves_of(name: str, args: list[Value]) -> Value:
    """`jtu.tree_leaves(tree)`: a new list (a tuple for `tree_flatten_one_level`) of the tree's leaves,
    tracers or not; its length and truth are the tree structure's, Python values under any jit."""
    return contained(join(*args).via(f"`{name}()`"))


def join_env(a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
    out = dict(a)
    for name, value in b.items():
        out[name] = merge(out[name], value) if name in out else value
    return out
