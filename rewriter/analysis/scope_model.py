"""Scopes, bindings and reads: the model the scope walk on CPython's ast fills (ast_scopes.py), with the
names and attributes of libcst's ScopeProvider that the analysis reads (`scope[name]`, `name in scope`,
`scope.assignments`, `scope.accesses`, `get_qualified_names_for`, an assignment's
`name`/`node`/`scope`/`references`, an access's `node`/`referents`): the analysis moved from libcst's
tree to CPython's (issue 45) with the answers it had, which tests/test_ast_scopes.py records.
"""
from __future__ import annotations

import ast
from ast import AsyncFunctionDef, Attribute, Call, ClassDef, FunctionDef, Import, ImportFrom, Name, Subscript
import builtins
import enum
from dataclasses import dataclass
from itertools import count
from typing import Iterator, Sequence, Union

Node = ast.AST

_TYPING = ("typing", "typing_extensions")
_created = count()  # orders reads and bindings as the walk made them


class QualifiedNameSource(enum.Enum):
    """Where a qualified name comes from, as libcst's enum of that name says it."""

    IMPORT = enum.auto()
    BUILTIN = enum.auto()
    LOCAL = enum.auto()


@dataclass(frozen=True)
class QualifiedName:
    """What a name stands for (`jax.numpy.where`) and where that comes from: libcst's class of that name, of
    our own so that the analysis on `ast` needs no libcst."""

    name: str
    source: QualifiedNameSource


def _in_walk_order(items: set) -> tuple:
    """libcst's sets iterate in the order of their objects' addresses, which is no order at all, and a
    message built from them would change from run to run: ours iterate in the order of the walk."""
    return tuple(items) if len(items) <= 1 else tuple(sorted(items, key=lambda item: item.created))


# -- assignments and accesses ----------------------------------------------------------------
class Access:
    """A read of a name: `node` (the Name; the Attribute a dotted import covers; the string of a
    string annotation), the scope it is read in, and the assignments it may see (`referents`)."""

    __slots__ = ("node", "scope", "index", "created", "name", "_referents")

    def __init__(self, node: Node, scope: Scope, index: int) -> None:
        self.node = node
        self.scope = scope
        self.index = index  # the reading scope's count of bindings so far: later ones are not seen
        self.created = next(_created)
        self.name = ""  # the name read (a dotted one for a read a dotted import covers): set by resolve_reads
        self._referents: set[BaseAssignment] | None = None  # (`_seen`: found when first asked)

    @property
    def referents(self) -> tuple[BaseAssignment, ...]:
        return _in_walk_order(self._seen())

    def _seen(self) -> set[BaseAssignment]:
        """The assignments the read may see, found when first asked, from the bindings the whole walk
        made (a scope gains none after it): the rules ask of few of a module's reads."""
        found = self._referents
        if found is None:
            scope, name = self.scope, self.name
            if scope.globals is None:
                return set()  # (released: Scopes.release)
            scope.globals._seen_reads.append(self)  # (what Scopes.release must let go of)
            assignments = scope._resolve(name, scope)
            found = {a for a in assignments if a.scope is not scope or a.index < self.index}
            if not found and assignments and scope.parent is not scope:
                found = set(scope.parent._resolve(name, scope))  # read before any binding here: the enclosing ones
            self._referents = found
        return found


class BaseAssignment:
    """A binding of `name` in `scope`, with the reads that may see it (`references`)."""

    __slots__ = ("name", "scope", "index", "created", "_references")

    def __init__(self, name: str, scope: Scope, index: int) -> None:
        self.name = name
        self.scope = scope
        self.index = index  # order among the scope's bindings
        self.created = next(_created)
        self._references: set[Access] = set()

    @property
    def references(self) -> tuple[Access, ...]:
        module = self.scope.globals
        if module is not None and module._reads_unseen:
            _give_bindings_their_reads(module)
        return _in_walk_order(self._references)

    def _record_accesses(self, accesses: set[Access]) -> None:
        later = {a for a in accesses if a.scope is not self.scope or self.index < a.index}
        self._references |= later
        earlier = accesses - later
        if earlier and self.scope.parent is not self.scope:  # they see what the enclosing scope binds
            for shadowed in self.scope.parent[self.name]:
                shadowed._record_accesses(earlier)

    def get_qualified_names_for(self, full_name: str) -> set[QualifiedName]:
        raise NotImplementedError


class Assignment(BaseAssignment):
    """A binding in the file; `node` is the Name, Param, FunctionDef, ClassDef, Import... that binds."""

    __slots__ = ("node",)

    def __init__(self, name: str, scope: Scope, node: Node, index: int) -> None:
        super().__init__(name, scope, index)
        self.node = node

    def get_qualified_names_for(self, full_name: str) -> set[QualifiedName]:
        prefix = self.scope._name_prefix
        return {QualifiedName(f"{prefix}.{full_name}" if prefix else full_name, QualifiedNameSource.LOCAL)}


class ImportAssignment(Assignment):
    """A binding by an import statement (`node`); `as_name` is the alias's name or its `as` name."""

    __slots__ = ("as_name",)

    def __init__(self, name: str, scope: Scope, node: Node, index: int, as_name: Node) -> None:
        super().__init__(name, scope, node, index)
        self.as_name = as_name

    def get_module_name_for_import(self) -> str:
        node = self.node
        if isinstance(node, ImportFrom):
            return "." * node.level + (node.module or "")
        return ""  # (an `import a.b`: no module)

    def get_qualified_names_for(self, full_name: str) -> set[QualifiedName]:
        """The imported name `full_name` (spelled with the local name) stands for: for a dotted import
        (`import a.b`), the longest imported prefix it starts with."""
        module = self.get_module_name_for_import()
        results = set()
        for real_name, alias_name in _aliases(self.node):
            if not real_name:
                continue
            parts = real_name.split(".")
            for real in (".".join(parts[:i]) for i in range(len(parts), 0, -1)):
                as_name = real
                if module and module.endswith("."):  # from . import a: ".a"
                    real = f"{module}{real}"
                elif module:
                    real = f"{module}.{real}"
                if alias_name is not None:
                    as_name = alias_name
                if full_name.startswith(as_name):
                    remaining = full_name.split(as_name, 1)[1]
                    if remaining and not remaining.startswith("."):
                        continue
                    remaining = remaining.lstrip(".")
                    results.add(QualifiedName(f"{real}.{remaining}" if remaining else real, QualifiedNameSource.IMPORT))
                    break
        return results


def _aliases(node) -> Iterator[tuple[str | None, str | None]]:
    """An import statement's (name, `as` name) pairs; none for `import *`."""
    for alias in node.names:
        if alias.name != "*":
            yield alias.name, alias.asname


class BuiltinAssignment(BaseAssignment):
    """A name Python provides (`print`, `len`): no node binds it."""

    __slots__ = ()

    def get_qualified_names_for(self, full_name: str) -> set[QualifiedName]:
        return {QualifiedName(f"builtins.{self.name}", QualifiedNameSource.BUILTIN)}


class Assignments:
    """A scope's own bindings: `scope.assignments[name]` (a new set), `name in`, iteration."""

    __slots__ = ("_by_name",)

    def __init__(self, by_name: dict[str, set[BaseAssignment]]) -> None:
        self._by_name = by_name

    def __iter__(self) -> Iterator[BaseAssignment]:
        for assignments in list(self._by_name.values()):
            yield from assignments

    def __getitem__(self, node: Union[str, Node]) -> set[BaseAssignment]:
        name = full_name_for(node)
        return set(self._by_name[name]) if name in self._by_name else set()

    def __contains__(self, node: Union[str, Node]) -> bool:
        return len(self[node]) > 0


class Accesses:
    """The reads recorded in a scope, by name: `scope.accesses[name]`, `name in`, iteration."""

    __slots__ = ("_by_name",)

    def __init__(self, by_name: dict[str, set[Access]]) -> None:
        self._by_name = by_name

    def __iter__(self) -> Iterator[Access]:
        for accesses in self._by_name.values():
            yield from accesses

    def __getitem__(self, node: Union[str, Node]) -> set[Access]:
        name = full_name_for(node)
        return self._by_name[name] if name in self._by_name else set()

    def __contains__(self, node: Union[str, Node]) -> bool:
        return len(self[node]) > 0


# -- scopes ----------------------------------------------------------------------------------
class Scope:
    """A namespace: the module's, a function's or lambda's, a class body's, a comprehension's, the
    builtins'. `parent` is the enclosing one (the builtins' is itself)."""

    __slots__ = ("parent", "globals", "_assignments", "count", "_accesses_by_name", "_accesses_by_node", "_name_prefix")

    def __init__(self, parent: Scope) -> None:
        self.parent = parent
        self.globals: GlobalScope = parent.globals
        self.globals._scopes.append(self)
        self._assignments: dict[str, set[BaseAssignment]] = {}
        self.count = 0  # bindings seen so far in the walk: orders bindings and reads
        self._accesses_by_name: dict[str, set[Access]] = {}
        self._accesses_by_node: dict[int, set[Access]] = {}
        self._name_prefix = ""

    # what the analysis asks
    def __contains__(self, name: str) -> bool:
        """`name` is bound here or in a scope this one sees (builtins included)."""
        raise NotImplementedError

    def __getitem__(self, name: str) -> set[BaseAssignment]:
        """The bindings `name` may denote when read in this scope."""
        return self._resolve(name, self)

    @property
    def assignments(self) -> Assignments:
        return Assignments(self._assignments)

    @property
    def accesses(self) -> Accesses:
        return Accesses(self._accesses_by_name)

    def get_qualified_names_for(self, node: Union[str, Node]) -> set[QualifiedName]:
        """What `node` (a read, a binding, or a dotted name) denotes, read in this scope: `a.b.c` for
        `c` after `from a.b import c`, `f.<locals>.x` for a local `x` of `f`, `builtins.len`."""
        if type(node) is not str:
            accesses = self._accesses_by_node.get(id(node))
            if accesses:
                return {q for access in accesses for referent in access._seen()
                        for q in referent.get_qualified_names_for(referent.name)}
        full_name = full_name_for(node)
        if full_name is None:
            return set()
        assignments: set[BaseAssignment] = set()
        prefix: str | None = full_name
        while prefix:
            if prefix in self:
                assignments = self[prefix]
                break
            dot = prefix.rfind(".")
            prefix = None if dot == -1 else prefix[:dot]
        if not isinstance(node, str):
            for assignment in assignments:
                if isinstance(assignment, Assignment) and _is_assignment(node, assignment.node):
                    return assignment.get_qualified_names_for(full_name)
        results: set[QualifiedName] = set()
        for assignment in assignments:
            results |= assignment.get_qualified_names_for(full_name)
        return results

    # how the walk fills it
    def _resolve(self, name: str, from_scope: Scope) -> set[BaseAssignment]:
        raise NotImplementedError

    def _target(self, name: str) -> Scope:
        """The scope a binding of `name` made here goes to (`global`/`nonlocal` redirect it)."""
        return self

    def _bind(self, name: str, node: Node) -> None:
        target = self._target(name)
        target._assignments.setdefault(name, set()).add(Assignment(name, target, node, target.count))

    def _bind_import(self, name: str, node: Node, as_name: Node) -> None:
        target = self._target(name)
        if "." in name:
            target.globals._binds_dotted = True
        target._assignments.setdefault(name, set()).add(ImportAssignment(name, target, node, target.count, as_name))

    def _record_access(self, name: str, access: Access) -> None:
        self._accesses_by_name.setdefault(name, set()).add(access)
        self._accesses_by_node.setdefault(id(access.node), set()).add(access)

    def _is_visible_from_children(self, from_scope: Scope) -> bool:
        return True

    def _next_visible_parent(self, from_scope: Scope, first: Scope | None = None) -> Scope:
        """The nearest enclosing scope whose names `from_scope` sees (a class body is seen only by
        its own type parameters)."""
        parent = first if first is not None else self.parent
        while not parent._is_visible_from_children(from_scope):
            parent = parent.parent
        return parent

    def _declare_global(self, name: str) -> None:
        raise NotImplementedError

    def _declare_nonlocal(self, name: str) -> None:
        raise NotImplementedError


def _builtin(name: str) -> bool:
    """`hasattr(builtins, name)` without the AttributeError it builds for most names: a module's type has
    no attribute but dunders, so any other name is one of the module's dict (read live, as hasattr)."""
    return name in _BUILTINS or name.startswith("__") and hasattr(builtins, name)


_BUILTINS = vars(builtins)


class BuiltinScope(Scope):
    """Python's builtins: a binding for each name of the `builtins` module, made when first asked."""

    __slots__ = ()

    def __init__(self, globals: GlobalScope) -> None:
        self.globals = globals
        self.parent = self
        Scope.__init__(self, self)

    def __contains__(self, name: str) -> bool:
        return _builtin(name)

    def _resolve(self, name: str, from_scope: Scope) -> set[BaseAssignment]:
        if name in self._assignments:
            return self._assignments[name]
        if _builtin(name):
            found = self._assignments[name] = {BuiltinAssignment(name, self, -1)}
            return found
        return set()

    def _target(self, name: str) -> Scope:
        raise NotImplementedError("assignments in builtin scope are not allowed")

    def _declare_global(self, name: str) -> None:
        raise NotImplementedError("global overwrite in builtin scope are not allowed")

    def _declare_nonlocal(self, name: str) -> None:
        raise NotImplementedError("declarations in builtin scope are not allowed")


class GlobalScope(Scope):
    """The module's scope, and what resolve_reads needs of the module's other scopes."""

    __slots__ = ("_scopes", "_seen_reads", "_reads_unseen", "_binds_dotted")

    def __init__(self) -> None:
        self.globals = self
        self._scopes: list[Scope] = []  # every scope of the module, this one and the builtins' included
        self._seen_reads: list[Access] = []  # the reads whose bindings were asked for (Access._seen)
        self._reads_unseen = False  # the bindings are not yet given the reads that may see them
        self._binds_dotted = False  # some import binds a dotted name (`import a.b` binds `a.b`)
        Scope.__init__(self, BuiltinScope(self))

    def __contains__(self, name: str) -> bool:
        if name in self._assignments:
            return len(self._assignments[name]) > 0
        return name in self._next_visible_parent(self)

    def _resolve(self, name: str, from_scope: Scope) -> set[BaseAssignment]:
        if name in self._assignments:
            return self._assignments[name]
        return self._next_visible_parent(from_scope)[name]

    def _declare_global(self, name: str) -> None:
        pass

    def _declare_nonlocal(self, name: str) -> None:
        raise NotImplementedError("nonlocal declaration not allowed at module level")


class LocalScope(Scope):
    """A scope a node opens (`node`), named `name` in qualified names when it has one."""

    __slots__ = ("name", "node", "_scope_overwrites")

    def __init__(self, parent: Scope, node: Node, name: str | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.node = node
        self._scope_overwrites: dict[str, Scope] = {}  # `global`/`nonlocal` names -> the scope they bind in
        self._name_prefix = self._make_name_prefix()

    def _make_name_prefix(self) -> str:
        return ".".join(filter(None, [self.parent._name_prefix, self.name, "<locals>"]))

    def __contains__(self, name: str) -> bool:
        if name in self._scope_overwrites:
            return name in self._scope_overwrites[name]
        if name in self._assignments:
            return len(self._assignments[name]) > 0
        return name in self._next_visible_parent(self)

    def _resolve(self, name: str, from_scope: Scope) -> set[BaseAssignment]:
        if name in self._scope_overwrites:
            return self._next_visible_parent(from_scope, self._scope_overwrites[name])._resolve(name, from_scope)
        if name in self._assignments:
            return self._assignments[name]
        return self._next_visible_parent(from_scope)._resolve(name, from_scope)

    def _target(self, name: str) -> Scope:
        if name in self._scope_overwrites:
            return self._next_visible_parent(self, self._scope_overwrites[name])._target(name)
        return self

    def _declare_global(self, name: str) -> None:
        self._scope_overwrites[name] = self.globals

    def _declare_nonlocal(self, name: str) -> None:
        self._scope_overwrites[name] = self.parent


class FunctionScope(LocalScope):
    """A def's or a lambda's body (and parameters)."""

    __slots__ = ()


class ClassScope(LocalScope):
    """A class body: its names are not seen from the functions defined in it."""

    __slots__ = ()

    def _is_visible_from_children(self, from_scope: Scope) -> bool:
        return from_scope.parent is self and isinstance(from_scope, AnnotationScope)

    def _make_name_prefix(self) -> str:
        return ".".join(filter(None, [self.parent._name_prefix, self.name]))


class ComprehensionScope(LocalScope):
    """A list/set/dict comprehension or generator expression (all but its first iterable)."""

    __slots__ = ()

    def _make_name_prefix(self) -> str:
        return ".".join(filter(None, [self.parent._name_prefix, "<comprehension>"]))


class AnnotationScope(LocalScope):
    """The type parameters of a generic def or class, or a `type` alias (PEP 695)."""

    __slots__ = ()

    def _make_name_prefix(self) -> str:
        return self.parent._name_prefix


_AST_NAME_OR_ATTRIBUTE = frozenset({Name, Attribute})
_AST_DEFS = frozenset({FunctionDef, AsyncFunctionDef, ClassDef})


def full_name_for(node) -> str | None:
    """libcst.helpers.get_full_name_for_node, on `ast`, with exact type tests: `a.b.c` of a Name/Attribute
    chain, through a call's function, a subscript's value, a def's or class's name; the string itself for
    a string; None for anything else."""
    kind = type(node)
    if kind is Name:
        return node.id
    if kind is str:
        return node
    if kind is Attribute:
        return f"{full_name_for(node.value)}.{node.attr}"
    if kind is Call:
        return full_name_for(node.func)
    if kind is Subscript:
        return full_name_for(node.value)
    if kind in _AST_DEFS:
        return node.name
    return None


def _dotted_names(node) -> Iterator[tuple[str, Node]]:
    """`a.b.c` -> ("a.b.c", a.b.c), ("a.b", a.b), ("a", a) for a chain; through the function of a call in
    the chain; nothing when the chain does not start with a name."""
    kind = type(node)
    if kind is Name:
        yield node.id, node
        return
    value = node.value
    kind = type(value)
    if kind is Call:
        if type(value.func) in _AST_NAME_OR_ATTRIBUTE:
            yield from _dotted_names(value.func)
    elif kind in _AST_NAME_OR_ATTRIBUTE:
        inner = _dotted_names(value)
        first = next(inner, None)
        if first is not None:
            yield f"{first[0]}.{node.attr}", node
            yield first
            yield from inner


def _is_assignment(node, assignment_node) -> bool:
    """`node` is what the binding at `assignment_node` binds (for an import: one of its aliases)."""
    if node is assignment_node:
        return True
    kind = type(assignment_node)
    if kind is Import or kind is ImportFrom:
        return any(alias is node for alias in assignment_node.names)
    return False


class Scopes:
    """The scope of each node of a module, as libcst's ScopeProvider assigned them (None for the nodes it
    leaves out: an attribute's name, an import's names, a keyword, a parameter's and an argument's parts,
    a comprehension's)."""

    __slots__ = ("module", "_by_id", "_parsed")

    def __init__(self, module, by_id: dict[int, Scope], parsed: list) -> None:
        self.module = module
        self._by_id = by_id
        self._parsed = parsed  # the string annotations' trees: their nodes' ids stay theirs

    def get(self, node: Node, default: Scope | None = None) -> Scope | None:
        return self._by_id.get(id(node), default)

    def __getitem__(self, node: Node) -> Scope:
        return self._by_id[id(node)]

    def release(self) -> None:
        """Forget every binding and read. A scope holds its bindings and reads, and each read the bindings
        it sees: cycles through which the file's tree stays alive until the garbage collector traverses
        all of it (runner._one_file), which costs far more than releasing them (docs/benchmarks.md). With
        every scope's bindings and reads let go of, and the bindings of each read that was asked for
        (Access._seen; a binding's reads point at reads, which no longer point back), nothing is left in a
        cycle. The engine calls it once a file's pass is over; nothing may be asked of these scopes after."""
        some = next(iter(self._by_id.values()), None)
        module = some.globals if some is not None else None
        if module is not None:
            for read in module._seen_reads:
                read._referents = set()
            for scope in module._scopes:
                scope._assignments, scope._accesses_by_name, scope._accesses_by_node = {}, {}, {}
                scope.parent = scope.globals = None  # type: ignore[assignment]  # (the module's and the builtins' point at each other)
            module._scopes, module._seen_reads = [], []
            module._reads_unseen = False
        self._by_id = {}


def resolve_reads(reads: Sequence[tuple[Access, str, Node | None, Node | None]]) -> None:
    """Index each read by the name it reads and its node, once the walk has seen every binding. A read
    is (its access, the name read, the outermost attribute chain it is read in, the string annotation
    it is read in): `a.b.c` after `import a.b` is a read of `a.b`, at that chain's node (only an import
    binds a dotted name); a read in a string annotation is recorded at the string. The bindings a read
    may see, and the reads a binding is seen by, are found when first asked (Access._seen,
    `_give_bindings_their_reads`): from the same final bindings, the same answers; most are never asked."""
    module = None
    dotted_bound = False
    for access, name, attribute, string in reads:
        scope = access.scope
        if module is None:
            module = scope.globals
            dotted_bound = module._binds_dotted
        if attribute is not None and dotted_bound:
            for dotted, node in _dotted_names(attribute):
                if dotted in scope:
                    access.node = node
                    name = dotted
                    break
        if string is not None:
            access.node = string
        access.name = name
        scope._record_access(name, access)
    if module is not None:
        module._reads_unseen = True


def _give_bindings_their_reads(module: GlobalScope) -> None:
    """Each binding of the module's scopes, the reads that may see it (BaseAssignment.references).
    (Giving a binding a read twice changes nothing: a second batch of reads is given with the first,
    and a second thread asking meanwhile gives them again rather than reading them half given.)"""
    for scope in list(module._scopes):
        for name, accesses in list(scope._accesses_by_name.items()):
            for assignment in list(scope._resolve(name, scope)):
                assignment._record_accesses(accesses)
    module._reads_unseen = False
