"""Resolve expressions to qualified API names with the module's scopes (scopes.py), resolved lazily.

Scope analysis costs about a third of a parse, so it is only computed once some node's spelling could
name an API (its last identifier is one of the table's). `from phi.flow import *`-style star imports,
which the scope analysis cannot see through, are resolved from the table of what those modules export.
"""
from __future__ import annotations

from functools import cache, cached_property

from typing import Callable

from ..lazy_libcst import cst

from ..cst_tree import children, concrete, track_subtree
from .aliases import NO_ALIASES, Aliases, absolute_module, spelled_module
from .positions import StatementPositions
from .resolution import Resolution
from .scopes import Scope, Scopes, module_scopes


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


@cache
def block_kinds() -> tuple[frozenset[type], frozenset[type]]:
    """The statements `NameResolver.imported` looks into, and the parts of them it walks (exact classes:
    cst_tree.concrete)."""
    return (concrete(cst.BaseCompoundStatement, cst.Else, cst.ExceptHandler, cst.Finally),
            concrete(cst.IndentedBlock, cst.Else, cst.ExceptHandler, cst.Finally, cst.BaseCompoundStatement))


class NameResolver(Resolution):
    """Name resolution (resolution.py) on a libcst tree."""

    def __init__(self, wrapper: cst.MetadataWrapper, package: str = "", aliases: Aliases = NO_ALIASES,
                 classes: frozenset[str] = frozenset()) -> None:
        super().__init__(package, aliases)
        self.wrapper = wrapper
        self.classes = classes  # the names it imports of the project's classes (facts.FileFacts.classes)
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
        # How messages name a line: `line 12`, or `cell 3, line 4` in a notebook (FileContext sets it).
        self.line_label: Callable[[int], str] = lambda line: f"line {line}"
        # The bytes the module was parsed from, when at hand (FileContext): positions.py reads where
        # statements start from CPython's parse of them.
        self.source: bytes | None = None
        self.outline: tuple | None = None  # positions.statement_outline of CPython's parse of `source`, if at hand

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
        from libcst.metadata import ParentNodeProvider

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

    @cached_property
    def imported(self) -> dict[str, set[str]]:
        """Local name -> the qualified names imports bind it to, anywhere in the file.

        Only statements are walked (never expressions), so this costs a fraction of a parse. It is a
        necessary condition for a name to resolve to an API; libcst's providers give the answer.
        """
        out: dict[str, set[str]] = {}
        stack: list[cst.CSTNode] = [self.wrapper.module]
        holds_blocks, blocks = block_kinds()
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
            elif kind in holds_blocks:
                stack.extend(c for c in children(node) if type(c) in blocks)
        return out

    # -- what resolution.py reads of the tree ------------------------------------------------
    def spelling(self, node: cst.CSTNode) -> str | None:
        return dotted(node)

    def identifier(self, name: cst.Name) -> str:
        return name.value

    @property
    def module_node(self) -> cst.Module:
        return self.wrapper.module

    def _block_of(self, owner: cst.CSTNode | None) -> list | None:
        return _block_of(owner)

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
