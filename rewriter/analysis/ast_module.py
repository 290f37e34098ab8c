"""The module as CPython reads it: its code, its `ast`, its name resolver and jit contexts, each made
once something asks; and where a node is, as a finding's Span counts it.

The readings moved to `ast` (issue 45) share one of these per module, and answer a rule on libcst by
place: a Span (lines from 1, columns in characters from 0) is compared with the spans of the `ast`
nodes, whose columns CPython counts in bytes of UTF-8. A def's or a class's span starts at its first
decorator, as the decorators are part of it (libcst's position of a def starts at `def`).
"""
from __future__ import annotations

import ast
from ast import (AsyncFunctionDef, Attribute, ClassDef, Constant, ExceptHandler, FunctionDef, Global, ImportFrom, MatchAs,
                 MatchClass, MatchMapping, MatchStar, Module, Name, Nonlocal, Tuple)
import io
import tokenize
from functools import cached_property
from typing import Any, Iterable

from ..findings import Span
from .aliases import NO_ALIASES, Aliases
from .ast_names import TreeWalk, parse


class AstModule:
    def __init__(self, code: str, package: str = "", aliases: Aliases = NO_ALIASES,
                 own_copies: frozenset[str] = frozenset(), tree: Module | None = None) -> None:
        """`tree`: CPython's parse of `code` (of the bytes it was decoded from), when the caller has it."""
        self.code = code
        self.package, self.aliases, self.own_copies = package, aliases, own_copies
        if tree is not None:
            self.tree = tree

    @cached_property
    def tree(self) -> Module | None:
        """None when CPython cannot parse the code (a newer Python's syntax): nothing is read from it."""
        return parse(self.code)

    @cached_property
    def lines(self) -> list[str]:
        return self.code.replace("\r\n", "\n").replace("\r", "\n").split("\n")

    @cached_property
    def names(self):
        """The name resolver (ast_resolver.NameResolver); only asked once the tree is known to parse."""
        from .ast_resolver import NameResolver

        assert self.tree is not None
        return NameResolver(self.tree, self.package, self.aliases, self.own_copies, self._walk)

    @cached_property
    def jit(self):
        """The jit contexts (ast_jit.JitAnalysis)."""
        from .ast_jit import JitAnalysis

        return JitAnalysis(self.names)

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """Every identifier spelled in the module: a new name must avoid all of them (`identifiers_in`)."""
        return _identifiers(self.walked)

    @cached_property
    def walked(self) -> list[ast.AST]:
        """Every node of the tree in `ast.walk`'s order (breadth first), less the context and operator
        singletons nothing looks for (ast_names.branches): one walk for every reading and rule that looks
        for nodes of some kinds (`nodes`), where each `ast.walk` paid a generator per node."""
        if self.tree is None:
            return []
        return self._walk.nodes()

    @cached_property
    def _walk(self) -> TreeWalk:
        """The walk `walked` reads, which also gives the name resolver each node's parent (ast_names.TreeWalk)."""
        assert self.tree is not None
        return TreeWalk(self.tree)

    @cached_property
    def _by_kind(self) -> dict[type, list[ast.AST]]:
        out: dict[type, list[ast.AST]] = {}
        for node in self.walked:
            found = out.get(type(node))
            if found is None:
                out[type(node)] = [node]
            else:
                found.append(node)
        return out

    def nodes(self, *kinds: type) -> list[Any]:
        """The nodes of these concrete classes, in `ast.walk`'s order (a new list)."""
        if len(kinds) == 1:
            return list(self._by_kind.get(kinds[0], ()))
        wanted = frozenset(kinds)
        return [node for node in self.walked if type(node) in wanted]

    def alone_on_its_lines(self, statement: ast.stmt) -> bool:
        """No other statement shares the lines of `statement` (libcst: the only statement of its line):
        before it only indentation, after it at most a `;` and a comment."""
        before = self.lines[statement.lineno - 1][:self._column(statement.lineno, statement.col_offset)]
        end_line = statement.end_lineno or statement.lineno
        after = self.lines[end_line - 1][self._column(end_line, statement.end_col_offset or 0):].strip()
        after = after[1:].strip() if after.startswith(";") else after
        return not before.strip() and (not after or after.startswith("#"))

    def release(self) -> None:
        """Break the cycles of the scopes' bindings and reads, if any were made (Scopes.release)."""
        if "names" in self.__dict__:
            self.names.release()
        self.__dict__.clear()

    # -- places ------------------------------------------------------------------------------
    def start(self, node: ast.AST) -> tuple[int, int]:
        decorators = getattr(node, "decorator_list", None)
        if decorators:
            return decorators[0].lineno, 0
        return node.lineno, self._column(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> tuple[int, int]:
        return node.end_lineno, self._column(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined, arg-type]

    def span(self, node: ast.AST) -> Span:
        (line, column), (end_line, end_column) = self.start(node), self.end(node)
        return Span(line, column, end_line, end_column)

    def place(self, node: ast.AST) -> Span:
        """Where libcst places `node`'s twin, which is where a finding at it is shown: a def where `def` is
        (not at its first decorator), a parameter at its name (not with its annotation). Where the trees
        end a node differently (locator.py), a node is found by where it starts."""
        line, column = node.lineno, self._column(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        if isinstance(node, ast.arg):
            return Span(line, column, line, column + len(node.arg))
        end_line, end_column = node.end_lineno, self._column(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined, arg-type]
        if isinstance(node, Tuple) and node.elts and self.parenthesized(node):
            first, last = node.elts[0], node.elts[-1]
            begin = self._code_between((line, column + 1), (first.lineno, self._column(first.lineno, first.col_offset)))
            finish = self._code_between((last.end_lineno, self._column(last.end_lineno, last.end_col_offset)),  # type: ignore[arg-type]
                                        (end_line, end_column - 1))  # type: ignore[arg-type]
            line, column = begin[0] if begin else (first.lineno, self._column(first.lineno, first.col_offset))
            end_line, end_column = (finish[-1][0], finish[-1][1] + 1) if finish else \
                (last.end_lineno, self._column(last.end_lineno, last.end_col_offset))  # type: ignore[arg-type]
        return Span(line, column, end_line, end_column)  # type: ignore[arg-type]

    def _code_between(self, start: tuple[int, int], end: tuple[int, int]) -> list[tuple[int, int]]:
        """The places of the characters of code from `start` to `end` (lines and character columns): not
        whitespace, a line continuation or a comment (where no string can be: between a tuple's
        parenthesis and its first element, or its last element and its parenthesis)."""
        places = []
        line, column = start
        while (line, column) < end:
            text = self.lines[line - 1]
            if column >= len(text) or text[column] == "#":
                line, column = line + 1, 0
                continue
            if not text[column].isspace() and text[column] != "\\":
                places.append((line, column))
            column += 1
        return places

    def name_place(self, node: FunctionDef | AsyncFunctionDef | ClassDef) -> Span:
        """Where a def's or a class's name is (`ast` has no node for it; libcst's Name)."""
        line, column = node.lineno, self._column(node.lineno, node.col_offset)
        text = self.text_between(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)  # type: ignore[arg-type]
        keyword = False
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.NAME:
                continue
            if keyword:
                (row, start), (_, end) = token.start, token.end
                shift = column if row == 1 else 0
                return Span(line + row - 1, start + shift, line + row - 1, end + shift)
            keyword = token.string in ("def", "class")
        raise ValueError(f"no name in the def at line {line}")

    def decorator_place(self, decorator: ast.expr) -> Span:
        """Where a decorator is with its `@` (libcst's Decorator; `ast` places only the expression)."""
        span = self.place(decorator)
        before = self.lines[span.line - 1][:span.column].rstrip(" \t\f")
        at = len(before) - 1 if before.endswith("@") else span.column
        return Span(span.line, at, span.end_line, span.end_column)

    def keyword_place(self, keyword: ast.keyword) -> Span:
        """Where a keyword argument's name is (libcst's Name; `ast` places the whole `name=value`)."""
        assert keyword.arg is not None
        line, column = keyword.lineno, self._column(keyword.lineno, keyword.col_offset)
        return Span(line, column, line, column + len(keyword.arg))

    def text(self, node: ast.AST) -> str:
        """The code of `node` as written (without the parentheses around it)."""
        return self.text_between(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def string_pieces(self, value: Constant) -> int:
        """How many string literals `value` is written as (`"a, " "b"`: 2, one implicit concatenation; libcst's
        `SimpleString` is one)."""
        tokens = tokenize.generate_tokens(io.StringIO(self.text(value)).readline)
        try:
            return sum(token.type == tokenize.STRING for token in tokens)
        except (tokenize.TokenError, SyntaxError):
            return 2  # (not one literal)

    def text_between(self, line: int, offset: int, end_line: int, end_offset: int) -> str:
        """The code between two of `ast`'s places (columns in bytes of UTF-8)."""
        column, end_column = self._column(line, offset), self._column(end_line, end_offset)
        if line == end_line:
            return self.lines[line - 1][column:end_column]
        return "\n".join([self.lines[line - 1][column:], *self.lines[line:end_line - 1], self.lines[end_line - 1][:end_column]])

    def declared_names(self, statement: Global | Nonlocal) -> dict[str, Span]:
        """Where each name of a `global`/`nonlocal` statement is (`ast` places only the statement)."""
        line, column = statement.lineno, self._column(statement.lineno, statement.col_offset)
        out: dict[str, Span] = {}
        tokens = tokenize.generate_tokens(io.StringIO(self.text(statement)).readline)
        for token in tokens:
            if token.type == tokenize.NAME and token.string in statement.names and token.string not in out:
                (row, start), (_, end) = token.start, token.end
                shift = column if row == 1 else 0
                out[token.string] = Span(line + row - 1, start + shift, line + row - 1, end + shift)
        return out

    def parenthesized(self, node: Tuple) -> bool:
        """A tuple in parentheses of its own: more of them open before its first element than close after it
        (`(a, b)`, `()`; not `(a), b`, whose parenthesis is its first element's)."""
        if not node.elts:
            return True
        first = node.elts[0]
        before = self.text_between(node.lineno, node.col_offset, first.lineno, first.col_offset)
        after = self.text_between(first.end_lineno, first.end_col_offset, node.end_lineno, node.end_col_offset)  # type: ignore[arg-type]
        return before.count("(") > after.split(",", 1)[0].count(")")

    def _column(self, line: int, offset: int) -> int:
        """`ast`'s column (bytes of UTF-8) in characters, as a Span counts it."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return offset if text.isascii() else len(text.encode("utf-8")[:offset].decode("utf-8", "ignore"))


def within(span: Span, outer: Span) -> bool:
    """`span` lies inside `outer` (or is it)."""
    return (outer.line, outer.column) <= (span.line, span.column) \
        and (span.end_line, span.end_column) <= (outer.end_line, outer.end_column)


def identifiers_in(root: ast.AST) -> frozenset[str]:
    """Every identifier spelled in `root` (libcst's Names: names, attributes, parameters, defs, imports,
    keywords, match patterns' names)."""
    return _identifiers(ast.walk(root))


def _identifiers(nodes: Iterable[ast.AST]) -> frozenset[str]:
    out: set[str] = set()
    for node in nodes:
        kind = type(node)
        if kind is Name:
            out.add(node.id)  # type: ignore[attr-defined]
        elif kind is Attribute:
            out.add(node.attr)  # type: ignore[attr-defined]
        elif kind is ast.arg:
            out.add(node.arg)  # type: ignore[attr-defined]
        elif kind in (FunctionDef, AsyncFunctionDef, ClassDef):
            out.add(node.name)  # type: ignore[attr-defined]
        elif kind is ast.alias:
            out.update(node.name.split("."))  # type: ignore[attr-defined]
            if node.asname:  # type: ignore[attr-defined]
                out.add(node.asname)  # type: ignore[attr-defined]
        elif kind is ImportFrom and node.module:  # type: ignore[attr-defined]
            out.update(node.module.split("."))  # type: ignore[attr-defined]
        elif kind is ast.keyword and node.arg:  # type: ignore[attr-defined]
            out.add(node.arg)  # type: ignore[attr-defined]
        elif kind in (Global, Nonlocal):
            out.update(node.names)  # type: ignore[attr-defined]
        elif kind is ExceptHandler and node.name:  # type: ignore[attr-defined]
            out.add(node.name)  # type: ignore[attr-defined]
        elif kind in (MatchAs, MatchStar) and node.name:  # type: ignore[attr-defined]
            out.add(node.name)  # type: ignore[attr-defined]
        elif kind is MatchMapping and node.rest:  # type: ignore[attr-defined]
            out.add(node.rest)  # type: ignore[attr-defined]
        elif kind is MatchClass:
            out.update(node.kwd_attrs)  # type: ignore[attr-defined]
    return frozenset(out)
