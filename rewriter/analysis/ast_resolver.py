"""Resolve expressions of CPython's `ast` to qualified API names (resolution.py), from the module's
scopes (ast_scopes.py), computed once something asks. Its answers are those libcst's resolver gave for
the same expression (deleted: issue 45): tests/test_ast_resolver.py records them on every name and
attribute chain of the golden cases and the examples.
"""
from __future__ import annotations

import ast
from ast import (AsyncFor, AsyncFunctionDef, AsyncWith, For, FunctionDef, If, Import, ImportFrom, Match, Module, Name, Try,
                 TryStar, While, With)
from functools import cached_property

from .aliases import NO_ALIASES, Aliases, absolute_module, spelled_module
from .ast_names import TreeWalk, branches, dotted, statements
from .resolution import Resolution
from .scope_model import Scope, Scopes
from . import ast_scopes

_DEFS = (FunctionDef, AsyncFunctionDef)
# A statement whose bindings may not happen when it runs (`_unconditional`).
_CONDITIONAL = (If, For, AsyncFor, While, Try, TryStar, With, AsyncWith, Match)


def imports_of(tree: Module, package: str = "") -> tuple[dict[str, set[str]], list[str]]:
    """(local name -> the qualified names imports anywhere in the file bind it to, `jnp` -> {`jax.numpy`};
    the modules imported with `*` anywhere, in the order met). A relative import's module is absolute in
    `package` where that can be told."""
    out: dict[str, set[str]] = {}
    stars: list[str] = []
    for node in statements(tree):
        if type(node) is Import:
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                out.setdefault(local, set()).add(alias.name if alias.asname else local)
        elif type(node) is ImportFrom:
            module = spelled_module(node.module, node.level, package)
            for alias in node.names:
                if alias.name == "*":
                    stars.append(module)
                else:
                    out.setdefault(alias.asname or alias.name, set()).add(
                        f"{module}{alias.name}" if module.endswith(".") else f"{module}.{alias.name}" if module else alias.name)
    return out, stars


def star_modules_of(tree: Module, package: str = "") -> list[str]:
    """Modules imported with `*` at module level, in import order (absolute: `from .math import *` in
    package `mypkg` is `mypkg.math`; one whose package cannot be told is left out)."""
    out = []
    for stmt in tree.body:
        if type(stmt) is ImportFrom and any(alias.name == "*" for alias in stmt.names):
            module = absolute_module(stmt.module, stmt.level, package) if stmt.level else stmt.module
            if module:
                out.append(module)
    return out


class NameResolver(Resolution):
    """What a Name or an attribute chain of one module denotes."""

    def __init__(self, tree: Module, package: str = "", aliases: Aliases = NO_ALIASES,
                 own_copies: frozenset[str] = frozenset(), walk: TreeWalk | None = None) -> None:
        """`walk`: the breadth-first walk of `tree` its module keeps (ast_names.TreeWalk), which gives
        `parents` without a walk of their own."""
        super().__init__(package, aliases)
        self.tree = tree
        self.own_copies = own_copies
        self._walk = walk

    @cached_property
    def scopes(self) -> Scopes:
        return ast_scopes.module_scopes(self.tree)

    @cached_property
    def imported(self) -> dict[str, set[str]]:
        return imports_of(self.tree, self.package)[0]

    @cached_property
    def star_modules(self) -> list[str]:
        return star_modules_of(self.tree, self.package)

    @cached_property
    def nodes(self) -> list[ast.AST]:
        """Every node of the tree in `ast.walk`'s order, less the context and operator singletons
        (ast_names.branches): the walk its module keeps, where it keeps one, shared with its readers."""
        return (self._walk or TreeWalk(self.tree)).nodes()

    @cached_property
    def parents(self) -> dict[int, ast.AST]:
        """id(node) -> its parent, for every node of the tree (not the context and operator singletons,
        which have none of their own: ast_names.branches)."""
        if self._walk is not None:
            return self._walk.parents()
        out: dict[int, ast.AST] = {}
        stack: list[ast.AST] = [self.tree]
        while stack:
            node = stack.pop()
            children = branches(node)
            for child in children:
                out[id(child)] = node
            stack.extend(children)
        return out

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    def release(self) -> None:
        """Break the cycles of the scopes' bindings and reads (scope_model.Scopes.release)."""
        if "scopes" in self.__dict__:
            self.scopes.release()
        self.__dict__.clear()

    def scope(self, node: ast.AST) -> Scope | None:
        return self.scopes.get(node)

    # -- what resolution.py reads of the tree ------------------------------------------------
    def spelling(self, node: ast.AST) -> str | None:
        return dotted(node)

    def identifier(self, name: Name) -> str:
        return name.id

    @property
    def module_node(self) -> Module:
        return self.tree

    def _block_of(self, owner) -> list | None:
        """A module's or an indented def's statements (names._block_of: not a one-line def's)."""
        if type(owner) is Module:
            return owner.body
        if type(owner) in _DEFS and not _one_line(owner):
            return owner.body
        return None

    def _unconditional(self, node: ast.AST, statement: ast.AST) -> bool:
        if type(statement) in (With, AsyncWith):  # the body runs unless an exception leaves the block
            current = self.parent(node)
            while current is not None and current is not statement:
                if type(current) in _CONDITIONAL:
                    return False
                current = self.parent(current)
            return True
        return not isinstance(statement, _CONDITIONAL)


def _one_line(function: FunctionDef | AsyncFunctionDef) -> bool:
    """`def f(x): return x`: its body is on the line of its `def`."""
    return function.body[0].lineno == function.lineno
