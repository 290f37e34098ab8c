"""Resolve expressions to qualified API names with the module's scopes (scopes.py), resolved lazily.

Scope analysis costs about a third of a parse, so it is only computed once some node's spelling could
name an API (its last identifier is one of the table's). `from phi.flow import *`-style star imports,
which the scope analysis cannot see through, are resolved from the table of what those modules export.
"""
from __future__ import annotations

from functools import cached_property

from typing import Callable

import libcst as cst
from libcst.metadata import ParentNodeProvider, QualifiedName, QualifiedNameSource

from ..cst_tree import children, concrete, track_subtree
from .aliases import NO_ALIASES, Aliases, absolute_module, absolute_name, spelled_module
from .apis import Api, canonical, lookup, spelled_apis, star_target
from .positions import StatementPositions
from .scopes import GlobalScope, Scope, Scopes, module_scopes


def dotted(node: cst.CSTNode) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts = []
    while type(node) is cst.Attribute:  # (libcst's node classes are ABCs: `isinstance` costs several times more)
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def last_name(node: cst.CSTNode) -> str | None:
    """`c` for `c` or `a.b.c` (the name a call is known by), else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


# The statements `NameResolver.imported` looks into, and the parts of them it walks (exact classes:
# cst_tree.concrete).
_HOLDS_BLOCKS = concrete(cst.BaseCompoundStatement, cst.Else, cst.ExceptHandler, cst.Finally)
_BLOCKS = concrete(cst.IndentedBlock, cst.Else, cst.ExceptHandler, cst.Finally, cst.BaseCompoundStatement)


class NameResolver:
    def __init__(self, wrapper: cst.MetadataWrapper, package: str = "", aliases: Aliases = NO_ALIASES,
                 classes: frozenset[str] = frozenset()) -> None:
        self.wrapper = wrapper
        # The package the module's relative imports start from ("" : not known, and they stay relative),
        # the project's re-exports of the names it imports (analysis/aliases.py), and the names it imports
        # of the project's classes (facts.FileFacts.classes)
        self.package = package
        self.aliases = aliases
        self.classes = classes
        # Filled by the engine's shared traversal (before_visit hook): saves a ParentNodeProvider
        # pass and a PositionProvider pass in every file that has candidates but no finding.
        self.tracked_parents: dict[int, cst.CSTNode] | None = None
        self.tracked_order: dict[int, int] | None = None
        # The node whose visit methods run (cst_tree.visit_batched's `visiting`) and the last one whose
        # subtree was tracked ahead of the walk: a rule reporting on a descendant it has not reached yet
        # (a decorator's string, an import's alias) must not cost a ParentNodeProvider pass.
        self.visiting: list = [None]
        self._tracked_ahead: cst.CSTNode | None = None
        # Every Name's value, filled by the same traversal (SyntaxIndex): a cheap "is it spelled anywhere";
        # and that index itself once complete (the jit analysis reads its calls and decorated defs).
        self.spelled: set[str] | None = None
        self.syntax = None
        self._apis_by_spelling: dict[str, list[Api]] = {}
        # How messages name a line: `line 12`, or `cell 3, line 4` in a notebook (FileContext sets it).
        self.line_label: Callable[[int], str] = lambda line: f"line {line}"
        # The bytes the module was parsed from, when at hand (FileContext): positions.py reads where
        # statements start from CPython's parse of them.
        self.source: bytes | None = None
        self.outline: tuple | None = None  # positions.statement_outline of CPython's parse of `source`, if at hand
        self._blocks: dict[int, tuple] = {}  # id(owner) -> `_block_index(owner)`
        # Libraries the project ships its own copy of, of a release the installed facts do not describe
        # (rewriter/project/targets.Targets.own_copies): names through them are the project's code, so
        # they are neither canonicalized through the installed re-exports nor taken for the table's APIs.
        self.own_copies: frozenset[str] = frozenset()

    def _own(self, name: str) -> bool:
        """`name` is spelled through a library the project ships its own copy of (`own_copies`)."""
        return bool(self.own_copies) and name.split(".", 1)[0] in self.own_copies

    def _canonical(self, name: str) -> str:
        return name if self._own(name) else canonical(name)

    def _provider(self, provider):
        return self.wrapper.resolve(provider)

    def release(self) -> None:
        """Once nothing more will be asked: break the cycles the resolver is part of (its scopes'
        bindings and reads, scopes.Scopes.release; the syntax index and the positions that point back
        at it), so that the file's tree is freed when the pass lets it go, not by the collector."""
        if "scopes" in self.__dict__:
            self.scopes.release()
        self.__dict__.clear()

    @cached_property
    def parents(self):
        return self._provider(ParentNodeProvider)

    @cached_property
    def positions(self) -> StatementPositions:
        """libcst's positions, computed only for the statements asked about (positions.py)."""
        return StatementPositions(self.wrapper, self.parent, self.tracked, self.source, self.outline)

    def tracked(self, node: cst.CSTNode) -> bool:
        """Whether the shared traversal knows `node`'s parent (tracking the visited node's subtree if need be)."""
        tracked = self.tracked_parents
        if tracked is None:
            return False
        if id(node) in tracked:
            return True
        current = self.visiting[0]
        if current is None or current is self._tracked_ahead:
            return False
        self._tracked_ahead = current
        track_subtree(current, tracked)
        return id(node) in tracked

    @cached_property
    def scopes(self) -> Scopes:
        return module_scopes(self.wrapper.module)

    @cached_property
    def star_modules(self) -> list[str]:
        """Modules imported with `*` at module level, in import order (absolute: `from .math import *`
        in package `mypkg` is `mypkg.math`)."""
        out = []
        for stmt in self.wrapper.module.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar):
                        mod = dotted(small.module) if small.module is not None else None
                        mod = absolute_module(mod, len(small.relative), self.package) if small.relative else mod
                        if mod:
                            out.append(mod)
        return out

    def resolved(self, name: str) -> str:
        """What an absolute name a file's import binds (`mypkg.math.batch`) denotes: read through the
        project's re-exports and the installed packages' (`phiml.math.batch`)."""
        return canonical(self.aliases.realias(name))

    def starts_after(self, node: cst.CSTNode, other: cst.CSTNode) -> bool:
        """Whether `node` starts after `other` (document pre-order): by the shared traversal's order when
        it has met both (cheap), else by both positions (an order and a position do not compare)."""
        order = self.tracked_order
        if order is not None and id(node) in order and id(other) in order:
            return order[id(node)] > order[id(other)]
        a, b = self.positions[node].start, self.positions[other].start
        return (a.line, a.column) > (b.line, b.column)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        if self.tracked(node):
            return self.tracked_parents[id(node)]
        if node is self.wrapper.module:
            return None  # the root: climbing ancestors must not cost a ParentNodeProvider pass
        return self.parents.get(node)

    def scope(self, node: cst.CSTNode) -> Scope | None:
        return self.scopes.get(node)

    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        scope = self.scope(node)  # the scope answers directly: no QualifiedNameProvider pass
        names = {self._denoted(q) for q in scope.get_qualified_names_for(node)} if scope is not None else set()
        if names or not self.star_modules:
            return names
        text = dotted(node)
        if text is None:
            return names
        head, _, rest = text.partition(".")
        scope = self.scope(node)
        if scope is not None and scope.assignments[head]:
            return names  # bound in the file: not from the star import
        for mod in reversed(self.star_modules):  # a later star import shadows an earlier one
            if self._own(mod):
                return names  # the project's own copy: its exports are not the installed ones
            target = star_target(mod, head, self.aliases)
            if target:
                return {canonical(target + ("." + rest if rest else ""))}
        return names

    def _denoted(self, q: QualifiedName) -> str:
        """A qualified name of the scope analysis, canonical: an import's made absolute (a relative one
        in the module's package) and read through the project's re-exports."""
        if q.source is not QualifiedNameSource.IMPORT:
            return canonical(q.name)
        name = absolute_name(q.name, self.package) if q.name.startswith(".") else q.name
        return self._canonical(self.aliases.realias(name))

    @cached_property
    def imported(self) -> dict[str, set[str]]:
        """Local name -> the qualified names imports bind it to, anywhere in the file.

        Only statements are walked (never expressions), so this costs a fraction of a parse. It is a
        necessary condition for a name to resolve to an API; libcst's providers give the answer.
        """
        out: dict[str, set[str]] = {}
        stack: list[cst.CSTNode] = [self.wrapper.module]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is cst.SimpleStatementLine:
                for small in node.body:
                    if type(small) is cst.Import:
                        for alias in small.names:
                            full = dotted(alias.name)
                            local = alias.asname.name.value if alias.asname else full.split(".")[0]
                            out.setdefault(local, set()).add(full if alias.asname else local)
                    elif type(small) is cst.ImportFrom and type(small.names) is not cst.ImportStar:
                        module = dotted(small.module) if small.module is not None else ""
                        if small.relative:  # `from ..math import batch`: absolute in the module's package
                            module = spelled_module(module or None, len(small.relative), self.package)
                        for alias in small.names:
                            local = alias.asname.name.value if alias.asname else dotted(alias.name)
                            out.setdefault(local, set()).add(f"{module}{dotted(alias.name)}" if module.endswith(".")
                                                             else f"{module}.{dotted(alias.name)}" if module else dotted(alias.name))
            elif kind is cst.Module or kind is cst.IndentedBlock:
                stack.extend(node.body)
            elif kind in _HOLDS_BLOCKS:
                stack.extend(c for c in children(node) if type(c) in _BLOCKS)
        return out

    def could_be_api(self, node: cst.CSTNode, kinds=None) -> bool:
        """Cheap test that `node`'s spelling can resolve to an API (of `kinds`) via an import or `*`."""
        text = dotted(node)
        if text is None:
            return False
        return any(kinds is None or a.kind in kinds for a in self._spelled_apis(text))

    def could_be_one_of(self, node: cst.CSTNode, api_names: frozenset[str]) -> bool:
        """`could_be_api`, for a set of API names rather than kinds."""
        text = dotted(node)
        return text is not None and any(a.name in api_names for a in self._spelled_apis(text))

    def _spelled_apis(self, text: str) -> list[Api]:
        """`spelled_apis` through the file's imports, once per spelling (a file has few of them)."""
        found = self._apis_by_spelling.get(text)
        if found is None:
            found = self._apis_by_spelling[text] = spelled_apis(text, self.imported, self.star_modules, self.aliases)
        return found

    def api(self, node: cst.CSTNode, kinds=None) -> Api | None:
        """The API (of one of `kinds`) this Name/Attribute refers to. Cheap when its spelling cannot match."""
        if not self.could_be_api(node, kinds):
            return None
        # Every binding the name may have must be the same API (a conditional rebinding is not).
        apis = {None if self._own(name) else lookup(name) for name in self.qualified_names(node)}
        if len(apis) != 1:
            return None
        api = apis.pop()
        return api if api is not None and (kinds is None or api.kind in kinds) else None

    # -- scopes ----------------------------------------------------------------------------
    def assignments(self, name: cst.Name):
        """Every binding of the name in the scope it is read from, wherever it is in the text (empty for
        builtins/unknown). For the binding the read really sees, use `reaching`."""
        scope = self.scope(name)
        if scope is None:
            return set()
        return set(scope[name.value]) if name.value in scope else set()

    def reaching(self, name: cst.Name) -> set:
        """The bindings the name read at `name` may denote when it is read, flow-sensitively.

        `def step` called eagerly, redefined, and only the second one jitted (`fast = jax.jit(step)`)
        are two functions: a read in straight-line code sees the last binding that certainly ran
        before it, plus any later conditional ones (inside `if`/loops/`try`). A read inside a
        function body runs after the module has been imported: it sees the last binding of the
        module, and the conditional ones after it. Reads the scope analysis cannot place keep
        every binding (conservative).
        """
        scope = self.scope(name)
        if scope is None or name.value not in scope:
            return set()
        access = next((a for a in scope.accesses[name.value] if a.node is name), None)
        candidates = set(access.referents) if access is not None else set(scope[name.value])
        if len(candidates) <= 1:
            return candidates
        scopes = {id(a.scope) for a in candidates}
        if len(scopes) != 1:
            return candidates
        owner_scope = next(iter(candidates)).scope
        owner = self.wrapper.module if isinstance(owner_scope, GlobalScope) else getattr(owner_scope, "node", None)
        block, index = self._block_index(owner)
        if block is None:
            return candidates
        placed = []
        for assignment in candidates:
            node = getattr(assignment, "node", None)
            statement = self._statement_in(node, index) if node is not None else None
            if statement is None:
                return candidates
            placed.append((index[id(statement)], self._unconditional(node, statement), assignment))
        if scope is owner_scope:
            use = self._statement_in(name, index)
            limit = index[id(use)] if use is not None else len(block)
        else:  # read in a nested function: it runs after the block
            limit = len(block)
        out = set()
        for position, unconditional, assignment in sorted(placed, key=lambda p: p[0], reverse=True):
            if position > limit:
                continue
            out.add(assignment)
            if unconditional and position < limit:  # a binding in the reading statement itself may come later
                break
        return out or candidates

    def _block_index(self, owner: cst.CSTNode | None) -> tuple[list | None, dict[int, int] | None]:
        """`_block_of(owner)` and each of its statements' place in it, once per block (`reaching` asks
        for a module's block at every read of a name bound more than once in it)."""
        found = self._blocks.get(id(owner))
        if found is None:
            block = _block_of(owner)
            found = self._blocks[id(owner)] = (block, None if block is None else {id(stmt): i for i, stmt in enumerate(block)})
        return found

    def _statement_in(self, node: cst.CSTNode, index: dict[int, int]) -> cst.CSTNode | None:
        """The ancestor of `node` (or itself) that is a statement of the block `index` numbers."""
        current = node
        while current is not None and id(current) not in index:
            current = self.parent(current)
        return current

    def _unconditional(self, node: cst.CSTNode, statement: cst.CSTNode) -> bool:
        """The binding at `node` certainly happens when its block-level `statement` runs."""
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef, cst.SimpleStatementLine)):
            return True
        if isinstance(statement, cst.With):  # the body runs unless an exception leaves the block
            current = self.parent(node)
            while current is not None and current is not statement:
                if isinstance(current, (cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.With, cst.Match)):
                    return False
                current = self.parent(current)
            return True
        return False


def _block_of(owner: cst.CSTNode | None) -> list | None:
    """The statements directly in a module's or function's body."""
    if isinstance(owner, cst.Module):
        return list(owner.body)
    if isinstance(owner, cst.FunctionDef) and isinstance(owner.body, cst.IndentedBlock):
        return list(owner.body.body)
    return None
