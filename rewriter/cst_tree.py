"""Read-only walks of libcst trees that do not rebuild them.

libcst has one traversal for visitors and transformers alike: every `visit` (and every `.children`)
goes through the node's `_visit_and_replace_children`, which constructs a new copy of each node it
passes (validation included) and calls two attribute hooks per field, even when the visitor only
reads. Reading a tree that way costs about three times a plain walk. The analysis only reads, so
it walks the fields itself, in the order libcst's own traversal visits them: that order is learnt
once per node class by watching libcst's public traversal of a probe (`_child_fields`), so it follows
the installed libcst and needs no hand-written table, nor a reading of libcst's private source. `tests/test_cst_tree.py` checks it against `.children` on real code.
"""
from __future__ import annotations

import collections.abc
import dataclasses
import functools
import inspect
import typing
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from .lazy_libcst import cst

# What a field holds: a sequence of nodes, a node, or a node or nothing (None, MaybeSentinel, or
# ImportFrom.names' `*` or sequence).
_SEQUENCE, _NODE, _MAYBE = "sequence", "node", "maybe"
_FIELDS: dict[type, tuple[tuple[str, str], ...] | None] = {}


def _child_fields(cls: type) -> tuple[tuple[str, str], ...] | None:
    """(field, what it holds) of the fields libcst visits for `cls`, in visiting order; None if they
    cannot be learnt (libcst's own traversal is then used for this class).

    The order is learnt from libcst's public traversal itself: a probe of the class, each field that
    may hold nodes given a marker node of its own, is visited (`CSTNode.visit`) by a visitor that
    enters the probe and records the markers it is shown, in order. The probe is never validated:
    rebuilding it afterwards may fail, once the markers are recorded. What a field holds comes from
    its annotation."""
    hints = _annotations(cls)
    if not hints or not dataclasses.is_dataclass(cls):
        return None
    probe = object.__new__(cls)
    markers: dict[int, str] = {}
    kinds: dict[str, str] = {}
    for field in dataclasses.fields(cls):
        annotation = hints.get(field.name)
        classes = _classes_in(annotation) if annotation is not None else []
        value: object = field.default if field.default is not dataclasses.MISSING else None
        if any(isinstance(c, type) and issubclass(c, cst.CSTNode) for c in classes):
            marker = cst.Name("probe")
            markers[id(marker)] = field.name
            kinds[field.name] = _kind(annotation, classes)
            value = (marker,) if _admits_sequence(annotation) else marker
        object.__setattr__(probe, field.name, value)  # a frozen dataclass: the probe alone is written
    recorder = _recorder_class()(probe)
    try:
        probe.visit(recorder)
    except Exception:  # noqa: BLE001, S110 (rebuilding the probe validates it; the markers are recorded by then)
        pass
    order = [markers[seen] for seen in recorder.seen if seen in markers]
    if sorted(order) != sorted(kinds):  # a field not visited, or visited twice: not a shape this reads
        return None
    return tuple((name, kinds[name]) for name in order)


@functools.cache
def _recorder_class() -> type:
    """A visitor class (made once libcst is imported: lazy_libcst) that enters the probe, records each
    node it is shown below it, and enters none of them."""

    class Recorder(cst.CSTVisitor):
        def __init__(self, probe: cst.CSTNode) -> None:
            super().__init__()
            self.probe, self.seen = probe, []

        def on_visit(self, node: cst.CSTNode) -> bool:
            if node is self.probe:
                return True
            self.seen.append(id(node))
            return False

    return Recorder


def _admits_sequence(annotation) -> bool:
    origin = typing.get_origin(annotation)
    return origin is collections.abc.Sequence or any(map(_admits_sequence, typing.get_args(annotation)))


def _kind(annotation, classes: list) -> str:
    nothing = any(c in (cst.MaybeSentinel, type(None)) for c in classes)
    if typing.get_origin(annotation) is collections.abc.Sequence:
        return _SEQUENCE
    return _MAYBE if nothing or _admits_sequence(annotation) else _NODE


@functools.cache
def scope_kinds() -> frozenset[type]:
    """The nodes whose bodies run later, as scopes of their own. libcst's node classes are ABCs, so an
    `isinstance` test goes through ABCMeta; these classes have no subclasses, and a `type(node) in`
    test of a walk's every node is several times cheaper. (A function, not a constant, as every table
    of libcst's classes here: a module that names libcst reads it only once it runs: lazy_libcst.)"""
    return frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node.children` (the same nodes, in the same order) without rebuilding `node`."""
    read = _CHILDREN.get(type(node))
    if read is None:
        read = _CHILDREN[type(node)] = _reader(type(node), tokens=True)
    return read(node)


def branches(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`children(node)` less the tokens (`token_kinds`): the children a walk that looks for no token enters.
    Fields that hold only tokens (`whitespace_after`, `lpar`, `comma`...) are not read at all."""
    read = _BRANCHES.get(type(node))
    if read is None:
        read = _BRANCHES[type(node)] = _reader(type(node), tokens=False)
    return read(node)


_CHILDREN: dict[type, Callable[[cst.CSTNode], list]] = {}
_BRANCHES: dict[type, Callable[[cst.CSTNode], list]] = {}


def _reader(cls: type, tokens: bool) -> Callable[[cst.CSTNode], list]:
    """A function of `cls`'s nodes that lists their children (`tokens`: all, else all but tokens), made
    from its fields (`_child_fields`) as straight-line code, as `dataclasses` makes `__init__`: reading
    the fields in a loop, by name, took twice as long, and children are read of every node of a walk."""
    try:
        fields = _FIELDS[cls]
    except KeyError:
        fields = _FIELDS[cls] = _child_fields(cls)
    if fields is None or not all(name.isidentifier() for name, _ in fields):
        return (lambda node: list(node.children)) if tokens else \
            (lambda node, tokens=token_kinds(): [child for child in node.children if type(child) not in tokens])
    kept = "" if tokens else " if type(c) not in T"
    annotations = {} if tokens else _annotations(cls)
    lines = ["def read(n):", "    out = []"]
    for name, kind in fields:
        if not tokens and _only_tokens(annotations.get(name)):
            continue
        if kind is _NODE:
            lines.append(f"    out.append(n.{name})" if tokens else f"    v = n.{name}\n    if type(v) not in T: out.append(v)")
        elif kind is _SEQUENCE:  # FormattedStringExpression.format_spec: a sequence or None
            lines.append(f"    v = n.{name}\n    if v: out.extend([c for c in v{kept}])" if not tokens else
                         f"    v = n.{name}\n    if v is not None: out.extend(v)")
        else:  # a node, or None, MaybeSentinel.DEFAULT, or (ImportFrom.names) a sequence
            lines.append(f"    v = n.{name}\n    t = type(v)\n    if t is tuple or t is list: out.extend([c for c in v{kept}])\n"
                         f"    elif v is not None and t is not S{'' if tokens else ' and t not in T'}: out.append(v)")
    lines.append("    return out")
    namespace = {"S": cst.MaybeSentinel, "T": token_kinds()}
    exec("\n".join(lines), namespace)  # noqa: S102 (field names of libcst's classes, checked above)
    return namespace["read"]


def _annotations(cls: type) -> dict:
    """The fields' evaluated annotations (none if typing cannot evaluate them: every field is read)."""
    try:
        return typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001
        return {}


def _only_tokens(annotation) -> bool:
    """The annotation admits tokens only (`Sequence[LeftParen]`, `Comma | MaybeSentinel`)."""
    if annotation is None:
        return False
    found = _classes_in(annotation)
    nodes = [c for c in found if isinstance(c, type) and issubclass(c, cst.CSTNode)]
    return bool(nodes) and len(nodes) + sum(c in (cst.MaybeSentinel, type(None)) for c in found) == len(found) \
        and all(issubclass(c, token_bases()) for c in nodes)


def _classes_in(annotation) -> list:
    """The classes a (nested) `Union`/`Optional`/`Sequence` annotation names."""
    args = typing.get_args(annotation)
    return [c for a in args for c in _classes_in(a)] if args else [annotation]


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node below it, in pre-order (the order libcst visits them)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


if TYPE_CHECKING:
    Hook = Callable[[cst.CSTNode], None]


def concrete(*bases: type) -> frozenset[type]:
    """The node classes libcst exports that derive from `bases`: `type(node) in concrete(...)` says what
    `isinstance(node, bases)` says of a node libcst built, without ABCMeta's Python-level check
    (scope_kinds; libcst's other classes of those names are the ones `add_slots` replaced, never built).
    Derived is read off each class's MRO: `issubclass` against an ABC walks every subclass of it
    for each class it answers no for (docs/benchmarks.md); libcst registers no virtual one."""
    found = (getattr(cst, name) for name in dir(cst))
    return frozenset(c for c in found if isinstance(c, type) and not set(bases).isdisjoint(c.__mro__)
                     and not inspect.isabstract(c))


@functools.cache
def token_bases() -> tuple[type, ...]:
    """Whitespace, comments, punctuation and operators: three nodes in five of a module, and nothing but
    more of them below. No rule reads one as a node of its own (they read them as fields: `op`, `comma`)."""
    return (
        cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.EmptyLine, cst.Newline, cst.Comment,
        cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.LeftParen, cst.RightParen,
        cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
        cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp)


@functools.cache
def token_kinds() -> frozenset[type]:
    """The node classes of the tokens (`token_bases`)."""
    return concrete(*token_bases())


def _node_classes() -> frozenset[type]:
    """Every class a parse can build."""
    return concrete(cst.CSTNode)


def visit_batched(
    root: cst.CSTNode,
    visitors: Sequence[object],
    *,
    parents: dict[int, cst.CSTNode] | None = None,
    order: dict[int, int] | None = None,
    visiting: list | None = None,
) -> None:
    """libcst's `visit_batched` for visitors that only read: each `visit_<Type>` and `leave_<Type>`
    of every visitor, in the order libcst calls them, without rebuilding the tree. A visitor is any
    object with such methods (a libcst `BatchableCSTVisitor`, or a class of ours that derives from no
    libcst class: the rules, lazy_libcst). `parents` and
    `order`, when given, are filled with each node's parent and pre-order position (by id): a node's
    children get theirs when it is left behind, after its visit methods ran. `visiting`, when given,
    holds the node whose visit methods run (`visiting[0]`; None after the walk): a method that asks
    about a descendant the walk has not reached can have that subtree tracked (`track_subtree`)."""
    visit, leave = _methods(visitors)
    # Tokens no visitor hooks are not walked into: their place in the order and their own whitespace
    # are not recorded (no rule asks), nor, when no token is hooked, their parents: `branches` then
    # reads no field that holds only tokens (a parent asked of a token all the same is found by the
    # name resolver, rewriter/analysis/names.py).
    tokens = token_kinds()
    skipped = frozenset(c for c in tokens if c.__name__ not in visit and c.__name__ not in leave)
    read = branches if skipped == tokens else children
    by_type: dict[type, tuple[list[Hook], list[Hook]]] = {}
    counter = len(order) if order is not None else 0
    # The stack holds nodes to visit, and (node, leave methods) pairs for nodes whose type has some.
    stack: list = [root]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        node = pop()
        if type(node) is tuple:
            node, methods = node
            for method in methods:
                method(node)
            continue
        cls = type(node)
        hooks = by_type.get(cls)
        if hooks is None:
            hooks = by_type[cls] = (visit.get(cls.__name__, []), leave.get(cls.__name__, []))
        if order is not None:
            order[id(node)] = counter
            counter += 1
        if hooks[0]:
            if visiting is not None:
                visiting[0] = node
            for method in hooks[0]:
                method(node)  # as in libcst's batched traversal, a visit method cannot prune the walk
        if hooks[1]:
            push((node, hooks[1]))
        kids = read(node)
        if kids:
            if parents is not None:
                for kid in kids:
                    parents[id(kid)] = node
            if read is children:
                kids = [kid for kid in kids if type(kid) not in skipped]
            kids.reverse()
            extend(kids)
    if visiting is not None:
        visiting[0] = None


def track_subtree(root: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> None:
    """Record the parent (by id) of every node below `root`, as `visit_batched` will when it gets there."""
    stack = [root]
    while stack:
        node = stack.pop()
        kids = children(node)
        for kid in kids:
            parents[id(kid)] = node
        stack.extend(kids)


_METHOD_NAMES: dict[type, tuple[tuple[str, str, str], ...]] = {}


def _methods(visitors: Sequence[object]) -> tuple[dict[str, list[Hook]], dict[str, list[Hook]]]:
    """Node type name -> the bound visit_/leave_ methods of `visitors`, in visitor order."""
    visit: dict[str, list[Hook]] = {}
    leave: dict[str, list[Hook]] = {}
    for visitor in visitors:
        for kind, type_name, attribute in _method_names(type(visitor)):
            (visit if kind == "visit" else leave).setdefault(type_name, []).append(getattr(visitor, attribute))
    return visit, leave


def warm(visitor_classes: Sequence[type] = ()) -> None:
    """Build now what walks build on first use: every node class's child readers, and the hook names
    of `visitor_classes`. The runner calls it before it forks the workers that process files, which
    then inherit the tables instead of each building its own."""
    for cls in _node_classes():  # every class a parse can build
        if cls not in _CHILDREN:
            _CHILDREN[cls] = _reader(cls, tokens=True)
        if cls not in _BRANCHES:
            _BRANCHES[cls] = _reader(cls, tokens=False)
    for cls in visitor_classes:
        try:
            _method_names(cls)
        except NotImplementedError:
            pass  # raised again, as that file's error, by the walk of each file the visitor is asked to visit


def _method_names(cls: type) -> tuple[tuple[str, str, str], ...]:
    """(visit|leave, node type name, method name) of a visitor class's non-stub methods; cached per class
    (libcst asks `inspect.getmembers` of every instance, a third of a small file's analysis)."""
    found = _METHOD_NAMES.get(cls)
    if found is None:
        out = []
        for attribute in dir(cls):
            kind, _, type_name = attribute.partition("_")
            if kind not in ("visit", "leave") or not type_name:
                continue
            method = getattr(cls, attribute)
            if not callable(method) or getattr(method, "_is_no_op", False):
                continue
            if "_" in type_name:
                # visit_<Type>_<field>: libcst calls it around that field; this walk has no such hooks
                raise NotImplementedError(f"{cls.__name__}.{attribute}: attribute hooks are not supported by cst_tree")
            out.append((kind, type_name, attribute))
        found = _METHOD_NAMES[cls] = tuple(out)
    return found
