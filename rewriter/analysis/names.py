"""What the libcst pass that writes fixes asks of its tree: each node's parent, the statements' positions
(positions.py), and what the file's imports bind (`imported`, for the releases a fix's code names:
Codemod._release_doubt). Everything a rule decides is read from CPython's `ast` (ast_resolver.py, on the
scopes of ast_scopes.py); the libcst tree is only where fixes are written (issue 45).
"""
from __future__ import annotations

from functools import cache, cached_property

from ..lazy_libcst import cst

from ..cst_tree import children, concrete, track_subtree
from .aliases import spelled_module
from .positions import StatementPositions


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


class NameResolver:
    """Parents, positions and imports of a libcst tree, for the pass that writes fixes on it."""

    def __init__(self, wrapper: cst.MetadataWrapper, package: str = "") -> None:
        self.wrapper = wrapper
        self.package = package  # the package the module's relative imports start from ("": not known)
        # Filled by the engine's shared traversal (cst_tree.visit_batched): saves a ParentNodeProvider
        # pass and a PositionProvider pass in every file that has candidates but no finding.
        self.tracked_parents: dict[int, cst.CSTNode] | None = None
        # The node whose visit methods run (cst_tree.visit_batched's `visiting`) and the last one whose
        # subtree was tracked ahead of the walk: a rule reporting on a descendant it has not reached yet
        # (a decorator's string, an import's alias) must not cost a ParentNodeProvider pass.
        self.visiting: list = [None]
        self._tracked_ahead: cst.CSTNode | None = None
        # The bytes the module was parsed from, when at hand (FileContext): positions.py reads where
        # statements start from CPython's parse of them.
        self.source: bytes | None = None
        self.outline: tuple | None = None  # positions.statement_outline of CPython's parse of `source`, if at hand

    def _provider(self, provider):
        return self.wrapper.resolve(provider)

    def release(self) -> None:
        """Once nothing more will be asked: break the cycles the resolver is part of (the positions that
        point back at it), so that the file's tree is freed when the pass lets it go, not by the collector."""
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

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        if self.tracked(node):
            return self.tracked_parents[id(node)]
        if node is self.wrapper.module:
            return None  # the root: climbing ancestors must not cost a ParentNodeProvider pass
        return self.parents.get(node)

    @cached_property
    def imported(self) -> dict[str, set[str]]:
        """Local name -> the qualified names imports bind it to, anywhere in the file (relative ones
        absolute in the module's package where that can be told).

        Only statements are walked (never expressions), so this costs a fraction of a parse."""
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
