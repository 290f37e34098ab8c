"""The scopes of a libcst Module: what each scope binds, where each name is read, what it denotes.

This gives the answers libcst's ScopeProvider gives (the same scopes for the same nodes, the same
assignments, accesses and qualified names, its quirks included; tests/test_scopes.py compares the
two), computed in one read-only walk of the tree (rewriter.cst_tree) instead of libcst's two
rebuilding visits (its ExpressionContextProvider, then the scope visitor): about 8 times cheaper;
libcst's was about half the CPU of analysing a file. The classes keep the names and the attributes
of libcst's that the analysis uses (`scope[name]`, `name in scope`, `scope.assignments`,
`scope.accesses`, `get_qualified_names_for`, an assignment's `name`/`node`/`scope`/`references`,
an access's `node`/`referents`), so code written against libcst's reads them unchanged; only
`references` and `referents` are tuples in the order of the walk where libcst's are sets.

libcst's semantics, which this follows where Python's differ: a walrus in a comprehension binds in
the comprehension's scope; `del x`, match-pattern captures and keyword patterns are reads; a read
that a dotted import covers (`import a.b` then `a.b.c`) is recorded on the longest covered
Attribute; a string in an annotation (or in a `typing` subscript or `cast`) is parsed and read as
code, its reads recorded on the string.
"""
from __future__ import annotations

import builtins
from itertools import count
from typing import Iterator, Union

import libcst as cst
from libcst.metadata import QualifiedName, QualifiedNameSource

from ..cst_tree import branches

_TYPING = ("typing", "typing_extensions")
_created = count()  # orders reads and bindings as the walk made them


def _in_walk_order(items: set) -> tuple:
    """libcst's sets iterate in the order of their objects' addresses, which is no order at all, and a
    message built from them would change from run to run: ours iterate in the order of the walk."""
    return tuple(items) if len(items) <= 1 else tuple(sorted(items, key=lambda item: item.created))


# -- assignments and accesses ----------------------------------------------------------------
class Access:
    """A read of a name: `node` (the Name; the Attribute a dotted import covers; the string of a
    string annotation), the scope it is read in, and the assignments it may see (`referents`)."""

    __slots__ = ("node", "scope", "index", "created", "_referents")

    def __init__(self, node: cst.CSTNode, scope: Scope, index: int) -> None:
        self.node = node
        self.scope = scope
        self.index = index  # the reading scope's count of bindings so far: later ones are not seen
        self.created = next(_created)
        self._referents: set[BaseAssignment] = set()

    @property
    def referents(self) -> tuple[BaseAssignment, ...]:
        return _in_walk_order(self._referents)

    def _record_assignments(self, name: str) -> None:
        scope = self.scope
        assignments = scope._resolve(name, scope)
        earlier = {a for a in assignments if a.scope is not scope or a.index < self.index}
        if not earlier and assignments and scope.parent is not scope:
            earlier = scope.parent._resolve(name, scope)  # read before any binding here: the enclosing ones
        self._referents |= earlier


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

    def __init__(self, name: str, scope: Scope, node: cst.CSTNode, index: int) -> None:
        super().__init__(name, scope, index)
        self.node = node

    def get_qualified_names_for(self, full_name: str) -> set[QualifiedName]:
        prefix = self.scope._name_prefix
        return {QualifiedName(f"{prefix}.{full_name}" if prefix else full_name, QualifiedNameSource.LOCAL)}


class ImportAssignment(Assignment):
    """A binding by an import statement (`node`); `as_name` is the alias's name or its `as` name."""

    __slots__ = ("as_name",)

    def __init__(self, name: str, scope: Scope, node: cst.CSTNode, index: int, as_name: cst.CSTNode) -> None:
        super().__init__(name, scope, node, index)
        self.as_name = as_name

    def get_module_name_for_import(self) -> str:
        module = ""
        if isinstance(self.node, cst.ImportFrom):
            if self.node.module:
                module = full_name_for(self.node.module) or ""
            if self.node.relative:
                module = "." * len(self.node.relative) + module
        return module

    def get_qualified_names_for(self, full_name: str) -> set[QualifiedName]:
        """The imported name `full_name` (spelled with the local name) stands for: for a dotted import
        (`import a.b`), the longest imported prefix it starts with."""
        module = self.get_module_name_for_import()
        results = set()
        names = self.node.names
        if type(names) is cst.ImportStar:
            return results
        for alias in names:
            real_name = full_name_for(alias.name)
            if not real_name:
                continue
            parts = real_name.split(".")
            for real in (".".join(parts[:i]) for i in range(len(parts), 0, -1)):
                as_name = real
                if module and module.endswith("."):  # from . import a: ".a"
                    real = f"{module}{real}"
                elif module:
                    real = f"{module}.{real}"
                if alias.asname:
                    alias_name = alias.evaluated_alias
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

    def __getitem__(self, node: Union[str, cst.CSTNode]) -> set[BaseAssignment]:
        name = full_name_for(node)
        return set(self._by_name[name]) if name in self._by_name else set()

    def __contains__(self, node: Union[str, cst.CSTNode]) -> bool:
        return len(self[node]) > 0


class Accesses:
    """The reads recorded in a scope, by name: `scope.accesses[name]`, `name in`, iteration."""

    __slots__ = ("_by_name",)

    def __init__(self, by_name: dict[str, set[Access]]) -> None:
        self._by_name = by_name

    def __iter__(self) -> Iterator[Access]:
        for accesses in self._by_name.values():
            yield from accesses

    def __getitem__(self, node: Union[str, cst.CSTNode]) -> set[Access]:
        name = full_name_for(node)
        return self._by_name[name] if name in self._by_name else set()

    def __contains__(self, node: Union[str, cst.CSTNode]) -> bool:
        return len(self[node]) > 0


# -- scopes ----------------------------------------------------------------------------------
class Scope:
    """A namespace: the module's, a function's or lambda's, a class body's, a comprehension's, the
    builtins'. `parent` is the enclosing one (the builtins' is itself)."""

    __slots__ = ("parent", "globals", "_assignments", "count", "_accesses_by_name", "_accesses_by_node", "_name_prefix")

    def __init__(self, parent: Scope) -> None:
        self.parent = parent
        self.globals = parent.globals
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

    def get_qualified_names_for(self, node: Union[str, cst.CSTNode]) -> set[QualifiedName]:
        """What `node` (a read, a binding, or a dotted name) denotes, read in this scope: `a.b.c` for
        `c` after `from a.b import c`, `f.<locals>.x` for a local `x` of `f`, `builtins.len`."""
        if type(node) is not str:
            accesses = self._accesses_by_node.get(id(node))
            if accesses:
                return {q for access in accesses for referent in access._referents
                        for q in referent.get_qualified_names_for(referent.name)}
        full_name = full_name_for(node)
        if full_name is None:
            return set()
        assignments: set[BaseAssignment] = set()
        prefix = full_name
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

    def _bind(self, name: str, node: cst.CSTNode) -> None:
        target = self._target(name)
        target._assignments.setdefault(name, set()).add(Assignment(name, target, node, target.count))

    def _bind_import(self, name: str, node: cst.CSTNode, as_name: cst.CSTNode) -> None:
        target = self._target(name)
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


class BuiltinScope(Scope):
    """Python's builtins: a binding for each name of the `builtins` module, made when first asked."""

    __slots__ = ()

    def __init__(self, globals: GlobalScope) -> None:
        self.globals = globals
        self.parent = self
        Scope.__init__(self, self)

    def __contains__(self, name: str) -> bool:
        return hasattr(builtins, name)

    def _resolve(self, name: str, from_scope: Scope) -> set[BaseAssignment]:
        if name in self._assignments:
            return self._assignments[name]
        if hasattr(builtins, name):
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
    """The module's scope."""

    __slots__ = ()

    def __init__(self) -> None:
        self.globals = self
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

    def __init__(self, parent: Scope, node: cst.CSTNode, name: str | None = None) -> None:
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


# libcst's node classes are ABCs: `isinstance` of a node whose class is not the one asked calls
# ABCMeta.__instancecheck__, a Python frame; these classes have no subclasses, so an exact `type(...)`
# test says the same (cst_tree.SCOPES). 0.4 million such checks in this module on the whole benchmark corpus.
_NAME_OR_ATTRIBUTE = frozenset({cst.Name, cst.Attribute})
_IMPORTS = frozenset({cst.Import, cst.ImportFrom})


def full_name_for(node) -> str | None:
    """libcst.helpers.get_full_name_for_node, with exact type tests (`_NAME_OR_ATTRIBUTE`): `a.b.c` of a
    Name/Attribute chain, through a call's function, a subscript's value, a def's or class's name and a
    decorator's expression; the string itself for a string; None for anything else."""
    kind = type(node)
    if kind is cst.Name:
        return node.value
    if kind is str:
        return node
    if kind is cst.Attribute:
        return f"{full_name_for(node.value)}.{node.attr.value}"
    if kind is cst.Call:
        return full_name_for(node.func)
    if kind is cst.Subscript:
        return full_name_for(node.value)
    if kind is cst.FunctionDef or kind is cst.ClassDef:
        return full_name_for(node.name)
    if kind is cst.Decorator:
        return full_name_for(node.decorator)
    return None


def _dotted_names(node: cst.CSTNode) -> Iterator[tuple[str, cst.CSTNode]]:
    """`a.b.c` -> ("a.b.c", a.b.c), ("a.b", a.b), ("a", a); through the function of a call in the
    chain; nothing when the chain does not start with a name."""
    if type(node) is cst.Name:
        yield node.value, node
        return
    value = node.value
    kind = type(value)
    if kind is cst.Call:
        if type(value.func) in _NAME_OR_ATTRIBUTE:
            yield from _dotted_names(value.func)
    elif kind in _NAME_OR_ATTRIBUTE:
        inner = _dotted_names(value)
        first = next(inner, None)
        if first is not None:
            yield f"{first[0]}.{node.attr.value}", node
            yield first
            yield from inner


def _is_assignment(node: cst.CSTNode, assignment_node: cst.CSTNode) -> bool:
    """`node` is what the binding at `assignment_node` binds (for an import: one of its names)."""
    if node is assignment_node:
        return True
    if type(assignment_node) in _IMPORTS:
        aliases = assignment_node.names
        if type(aliases) is cst.ImportStar:
            return False
        for alias in aliases:
            if alias.name is node or alias.asname is not None and alias.asname.name is node:
                return True
    return False


# -- the walk --------------------------------------------------------------------------------
class Scopes:
    """The scope of each node of a module, as libcst's ScopeProvider assigns them (None for the
    nodes it leaves out: an attribute's name, an import's names, a keyword, the whitespace and
    punctuation of a def, a class, a lambda, a parameter, an argument, a comprehension), except for
    whitespace, comments, punctuation and operators (cst_tree.TOKENS): None, where libcst gives the
    scope around them. No rule asks for theirs, and skipping them halves the walk."""

    __slots__ = ("module", "_by_id", "_parsed")

    def __init__(self, module: cst.Module, by_id: dict[int, Scope], parsed: list[cst.Module]) -> None:
        self.module = module
        self._by_id = by_id
        self._parsed = parsed  # the string annotations' trees: their nodes' ids stay theirs

    def get(self, node: cst.CSTNode, default: Scope | None = None) -> Scope | None:
        return self._by_id.get(id(node), default)

    def __getitem__(self, node: cst.CSTNode) -> Scope:
        return self._by_id[id(node)]

    def release(self) -> None:
        """Forget every binding and read. A scope holds its bindings and reads, and each of them its
        scope and the reads or bindings it sees: cycles through which the file's tree stays alive
        until the garbage collector traverses all of it (runner._one_file), which costs far more than
        releasing them (docs/benchmarks.md). The engine calls it
        once a file's pass is over; nothing may be asked of these scopes after."""
        scopes = {id(s): s for s in self._by_id.values()}
        scopes.update({id(s.parent): s.parent for s in list(scopes.values())})  # the builtins' too
        for scope in scopes.values():
            for bindings in scope._assignments.values():
                for binding in bindings:
                    binding._references = set()
            for reads in scope._accesses_by_name.values():
                for read in reads:
                    read._referents = set()
            scope._assignments, scope._accesses_by_name, scope._accesses_by_node = {}, {}, {}
            scope.parent = scope.globals = None  # (the module's and the builtins' point at each other)
        self._by_id = {}


def module_scopes(module: cst.Module) -> Scopes:
    """Every scope of `module`, its bindings and reads, and the scope of each node."""
    walk = _Walk()
    walk.visit(module)
    walk.resolve_reads()
    return Scopes(module, walk.scope_of, walk.parsed)


_ASSIGNMENT_LIKE = frozenset({
    cst.AnnAssign, cst.AsName, cst.Assign, cst.AugAssign, cst.ClassDef, cst.CompFor, cst.FunctionDef,
    cst.Global, cst.Import, cst.ImportFrom, cst.NamedExpr, cst.Nonlocal, cst.Parameters, cst.WithItem,
    cst.TypeVar, cst.TypeAlias, cst.TypeVarTuple, cst.ParamSpec,
})


class _Walk:
    """One pass over the tree in libcst's visiting order, as its scope visitor goes: binds names,
    records reads (resolved once every binding is known), and gives each node the current scope.

    `store` is libcst's expression context, derived from where a node is: a Name in an assignment
    target (not under an attribute or subscript) binds, every other Name reads."""

    def __init__(self) -> None:
        self.scope: Scope = GlobalScope()
        self.scope_of: dict[int, Scope] = {}
        self.reads: list[tuple[Access, cst.Attribute | None, cst.BaseString | None]] = []
        self.attribute: list[cst.Attribute | None] = [None]  # outermost attribute being read, per call level
        self.in_annotation: list[bool] = [False]
        self.in_type_hint: list[bool] = [False]
        self.in_literal = 0  # open `Literal[...]` subscripts: their strings are not code
        self.string: cst.BaseString | None = None  # the string annotation whose code is being read
        self.parsed: list[cst.Module] = []
        # Whether a name could resolve to `typing.*` yet: until then the typing-only questions libcst
        # asks of every call and subscript (cast, TypeVar, Literal...) have the answer "no".
        self.typing_seen = False

    def visit(self, node: cst.CSTNode, store: bool = False) -> None:
        kind = type(node)
        handler = _HANDLERS.get(kind)
        if handler is None:
            for child in branches(node):
                self.visit(child, store)
        else:
            handler(self, node, store)
        scope = self.scope
        self.scope_of[id(node)] = scope
        if kind in _ASSIGNMENT_LIKE:
            scope.count += 1

    def visit_children(self, node: cst.CSTNode) -> None:
        for child in branches(node):
            self.visit(child)

    # bindings and reads
    def bind(self, name: str, node: cst.CSTNode) -> None:
        if name in _TYPING:
            self.typing_seen = True
        self.scope._bind(name, node)

    def name(self, node: cst.Name, store: bool) -> None:
        if store and self.string is None:  # names in a string annotation have no context: reads
            self.bind(node.value, node)
        else:
            scope = self.scope
            self.reads.append((Access(node, scope, scope.count), self.attribute[-1], self.string))
        if node.lpar:
            self.visit_children(node)

    def import_(self, node: cst.Import | cst.ImportFrom, store: bool) -> None:
        aliases = node.names
        if isinstance(aliases, cst.ImportStar):
            return
        if isinstance(node, cst.ImportFrom):
            if node.module is not None and not node.relative and _is_typing(full_name_for(node.module)):
                self.typing_seen = True
        scope = self.scope
        for alias in aliases:
            self.scope_of[id(alias)] = scope
            if isinstance(node, cst.Import) and _is_typing(full_name_for(alias.name)):
                self.typing_seen = True
            as_name = alias.asname.name if alias.asname is not None else alias.name
            for name, _ in _dotted_names(as_name):
                if name in _TYPING:
                    self.typing_seen = True
                scope._bind_import(name, node, as_name)

    def resolve_reads(self) -> None:
        """Give each read the bindings it may see, and each binding its reads."""
        groups: dict[tuple[int, str], tuple[Scope, str, set[Access]]] = {}
        for access, attribute, string in self.reads:
            name = access.node.value
            if attribute is not None:  # `a.b.c` after `import a.b`: a read of `a.b`
                for dotted, node in _dotted_names(attribute):
                    if dotted in access.scope:
                        access.node = node
                        name = dotted
                        break
            if string is not None:
                access.node = string
            scope = access.scope
            group = groups.get((id(scope), name))
            if group is None:
                group = groups[(id(scope), name)] = (scope, name, set())
            group[2].add(access)
            access._record_assignments(name)
            scope._record_access(name, access)
        for scope, name, accesses in groups.values():
            for assignment in scope._resolve(name, scope):
                assignment._record_accesses(accesses)
        self.reads = []

    # nodes that open scopes
    def function_def(self, node: cst.FunctionDef, store: bool) -> None:
        outer = self.scope
        self.bind(node.name.value, node)
        self.scope_of[id(node.name)] = outer
        if node.type_parameters is not None:
            self.scope = AnnotationScope(outer, node)
            self.visit(node.type_parameters)
        around = self.scope
        self.scope = FunctionScope(around, node, node.name.value)
        self.visit(node.params)
        self.visit(node.body)
        self.scope = around  # decorators and the return annotation see the type parameters
        for decorator in node.decorators:
            self.visit(decorator)
        if node.returns is not None:
            self.visit(node.returns)
        self.scope = outer

    def lambda_(self, node: cst.Lambda, store: bool) -> None:
        outer = self.scope
        self.scope = FunctionScope(outer, node)
        self.visit(node.params)
        self.visit(node.body)
        self.scope = outer

    def param(self, node: cst.Param, store: bool) -> None:
        scope = self.scope
        self.bind(node.name.value, node)
        self.scope_of[id(node.name)] = scope
        self.scope = scope.parent  # a default or an annotation is evaluated where the function is defined
        if node.default is not None:
            self.visit(node.default)
        if node.annotation is not None:
            self.visit(node.annotation)
        self.scope = scope

    def class_def(self, node: cst.ClassDef, store: bool) -> None:
        outer = self.scope
        self.bind(node.name.value, node)
        self.scope_of[id(node.name)] = outer
        for decorator in node.decorators:
            self.visit(decorator)
        if node.type_parameters is not None:
            self.scope = AnnotationScope(outer, node)
            self.visit(node.type_parameters)
        for base in node.bases:
            self.visit(base)
        for keyword in node.keywords:
            self.visit(keyword)
        self.scope = ClassScope(self.scope, node, node.name.value)
        for statement in node.body.body:
            self.visit(statement)
        self.scope = outer

    def comprehension(self, node: cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp, store: bool) -> None:
        """The first iterable is evaluated outside; the rest (targets, conditions, inner loops, the
        element) in the comprehension's own scope."""
        outer = self.scope
        for_in = node.for_in
        self.visit(for_in.iter)
        self.scope_of[id(for_in)] = outer
        self.scope = inner = ComprehensionScope(outer, node)
        self.visit(for_in.target, True)
        inner.count += 1
        for condition in for_in.ifs:
            self.visit(condition)
        if for_in.inner_for_in is not None:
            self.visit(for_in.inner_for_in)
        if isinstance(node, cst.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)
        self.scope = outer

    def type_alias(self, node: cst.TypeAlias, store: bool) -> None:
        outer = self.scope
        self.bind(node.name.value, node)
        self.scope = AnnotationScope(outer, node)
        if node.type_parameters is not None:
            self.visit(node.type_parameters)
        self.visit(node.value)
        self.scope = outer

    def type_var(self, node: cst.TypeVar, store: bool) -> None:
        self.bind(node.name.value, node)
        if node.bound is not None:
            self.visit(node.bound)

    def type_var_tuple(self, node: cst.TypeVarTuple | cst.ParamSpec, store: bool) -> None:
        self.bind(node.name.value, node)

    # other statements and expressions
    def global_(self, node: cst.Global, store: bool) -> None:
        for item in node.names:
            self.scope._declare_global(item.name.value)

    def nonlocal_(self, node: cst.Nonlocal, store: bool) -> None:
        for item in node.names:
            self.scope._declare_nonlocal(item.name.value)

    def for_(self, node: cst.For, store: bool) -> None:
        self.visit(node.target, True)
        self.scope.count += 1
        self.visit(node.iter)
        self.visit(node.body)
        if node.orelse is not None:
            self.visit(node.orelse)
        if node.asynchronous is not None:
            self.visit(node.asynchronous)

    def arg(self, node: cst.Arg, store: bool) -> None:
        self.visit(node.value)  # a keyword is neither a binding nor a read

    def attribute_(self, node: cst.Attribute, store: bool) -> None:
        top = self.attribute
        if top[-1] is None:
            top[-1] = node
        self.visit(node.value)
        if top[-1] is node:
            top[-1] = None

    def call(self, node: cst.Call, store: bool) -> None:
        self.attribute.append(None)
        self.in_type_hint.append(False)
        called = {q.name for q in self.scope.get_qualified_names_for(node)} if self.typing_seen else ()
        if "typing.NewType" in called or "typing.TypeVar" in called:
            self.visit(node.func)
            self.in_type_hint[-1] = True
            for arg in node.args[1:]:
                self.visit(arg)
        elif "typing.cast" in called:
            self.visit(node.func)
            if node.args:
                self.in_type_hint.append(True)
                self.visit(node.args[0])
                self.in_type_hint.pop()
                for arg in node.args[1:]:
                    self.visit(arg)
        else:
            self.visit_children(node)
        self.attribute.pop()
        self.in_type_hint.pop()

    def subscript(self, node: cst.Subscript, store: bool) -> None:
        hint = literal = False
        if self.typing_seen and isinstance(node.value, cst.Name):
            names = {q.name for q in self.scope.get_qualified_names_for(node.value)}
            hint = any(n.startswith(("typing.", "typing_extensions.")) for n in names)
            literal = "typing.Literal" in names or "typing_extensions.Literal" in names
        self.in_type_hint.append(hint)
        self.in_literal += literal
        self.visit_children(node)
        self.in_type_hint.pop()
        self.in_literal -= literal

    def annotation(self, node: cst.Annotation, store: bool) -> None:
        self.in_annotation.append(True)
        self.visit_children(node)
        self.in_annotation.pop()

    def simple_string(self, node: cst.SimpleString, store: bool) -> None:
        self.string_annotation(node)

    def concatenated_string(self, node: cst.ConcatenatedString, store: bool) -> None:
        if not self.string_annotation(node):
            self.visit_children(node)

    def string_annotation(self, node: cst.SimpleString | cst.ConcatenatedString) -> bool:
        """Read a string in an annotation or a type hint as code; False if it is not one."""
        if not (self.in_type_hint[-1] or self.in_annotation[-1]) or self.in_literal:
            return False
        value = node.evaluated_value
        if not value:
            return False
        outermost = self.string is None
        if outermost:
            self.string = node
        try:
            parsed = cst.parse_module(value)
        except cst.ParserSyntaxError:
            parsed = None  # as Python: not code, not read
        if parsed is not None:
            self.parsed.append(parsed)
            self.visit(parsed)
        if outermost:
            self.string = None
        return True


def _is_typing(name: str | None) -> bool:
    return name is not None and name.split(".", 1)[0] in _TYPING


def _binding_field(field: str):
    """A node whose `field` is an assignment target: its names there bind."""
    def visit(walk: _Walk, node: cst.CSTNode, store: bool) -> None:
        target = getattr(node, field)
        for child in branches(node):
            walk.visit(child, True if child is target else store)
    return visit


_HANDLERS = {
    cst.Name: _Walk.name,
    cst.Import: _Walk.import_,
    cst.ImportFrom: _Walk.import_,
    cst.FunctionDef: _Walk.function_def,
    cst.Lambda: _Walk.lambda_,
    cst.Param: _Walk.param,
    cst.ClassDef: _Walk.class_def,
    cst.ListComp: _Walk.comprehension,
    cst.SetComp: _Walk.comprehension,
    cst.DictComp: _Walk.comprehension,
    cst.GeneratorExp: _Walk.comprehension,
    cst.TypeAlias: _Walk.type_alias,
    cst.TypeVar: _Walk.type_var,
    cst.TypeVarTuple: _Walk.type_var_tuple,
    cst.ParamSpec: _Walk.type_var_tuple,
    cst.Global: _Walk.global_,
    cst.Nonlocal: _Walk.nonlocal_,
    cst.For: _Walk.for_,
    cst.Arg: _Walk.arg,
    cst.Attribute: _Walk.attribute_,
    cst.Call: _Walk.call,
    cst.Subscript: _Walk.subscript,
    cst.Annotation: _Walk.annotation,
    cst.SimpleString: _Walk.simple_string,
    cst.ConcatenatedString: _Walk.concatenated_string,
    cst.AssignTarget: _binding_field("target"),
    cst.AnnAssign: _binding_field("target"),
    cst.AugAssign: _binding_field("target"),
    cst.NamedExpr: _binding_field("target"),
    cst.AsName: _binding_field("name"),
    cst.CompFor: _binding_field("target"),
}
