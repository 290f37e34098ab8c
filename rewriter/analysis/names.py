"""Resolve expressions to qualified API names with libcst's metadata, resolved lazily.

Scope and qualified-name metadata is the expensive part of processing a file (about 10x a parse), so
it is only resolved once some node's spelling could name an API (its last identifier is one of the
table's). `from phi.flow import *`-style star imports, which libcst cannot see through, are resolved
from the table of what those modules export.
"""
from __future__ import annotations

from functools import cached_property

import libcst as cst
from libcst._metadata_dependent import LazyValue
from libcst.metadata import (
    GlobalScope,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    Scope,
    ScopeProvider,
)

from .apis import STAR_EXPORTS, Api, all_tails, canonical, lookup

_API_TAILS = all_tails()


def dotted(node: cst.CSTNode) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def tail(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _unlazy(value):
    return value() if isinstance(value, LazyValue) else value


class NameResolver:
    def __init__(self, wrapper: cst.MetadataWrapper) -> None:
        self.wrapper = wrapper

    def _provider(self, provider):
        return self.wrapper.resolve(provider)

    @cached_property
    def parents(self):
        return self._provider(ParentNodeProvider)

    @cached_property
    def positions(self):
        return self._provider(PositionProvider)

    @cached_property
    def scopes(self):
        return self._provider(ScopeProvider)

    @cached_property
    def _qualified(self):
        return self._provider(QualifiedNameProvider)

    @cached_property
    def star_modules(self) -> list[str]:
        """Modules imported with `*` at module level, in import order."""
        out = []
        for stmt in self.wrapper.module.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar):
                        mod = dotted(small.module) if small.module is not None else None
                        if mod:
                            out.append(mod)
        return out

    def start(self, node: cst.CSTNode) -> tuple[int, int]:
        """(line, column) where `node` starts: orderable, unlike libcst's CodePosition."""
        pos = self.positions[node].start
        return pos.line, pos.column

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def scope(self, node: cst.CSTNode) -> Scope | None:
        return _unlazy(self.scopes.get(node))

    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        names = {canonical(q.name) for q in (_unlazy(self._qualified.get(node)) or ())}
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
            target = STAR_EXPORTS.get(mod, {}).get(head)
            if target:
                return {canonical(target + ("." + rest if rest else ""))}
        return names

    @cached_property
    def api_tails(self) -> frozenset[str]:
        """API tails plus local aliases of them (`from jax import vmap as V` adds `V`)."""
        extra = set()
        stack: list[cst.CSTNode] = list(self.wrapper.module.body)
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                        for alias in small.names:
                            if alias.asname is not None and tail(alias.name) in _API_TAILS:
                                extra.add(alias.asname.name.value)
            elif isinstance(stmt, cst.BaseCompoundStatement):
                stack.extend(stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ())
                for attr in ("orelse", "finalbody"):
                    other = getattr(stmt, attr, None)
                    if other is not None and hasattr(other, "body"):
                        stack.extend(other.body.body if isinstance(other.body, cst.IndentedBlock) else ())
                for handler in getattr(stmt, "handlers", ()):
                    stack.extend(handler.body.body if isinstance(handler.body, cst.IndentedBlock) else ())
        return frozenset(_API_TAILS | extra)

    def api(self, node: cst.CSTNode) -> Api | None:
        """The API this Name/Attribute refers to, if any. Cheap when its spelling cannot match."""
        if tail(node) not in self.api_tails:
            return None
        for name in self.qualified_names(node):
            api = lookup(name)
            if api is not None:
                return api
        return None

    # -- scopes ----------------------------------------------------------------------------
    def is_module_level(self, node: cst.CSTNode) -> bool:
        return isinstance(self.scope(node), GlobalScope)

    def assignments(self, name: cst.Name):
        """Where the name read at `name` may have been bound (empty for builtins/unknown)."""
        scope = self.scope(name)
        if scope is None:
            return set()
        return set(scope[name.value]) if name.value in scope else set()
