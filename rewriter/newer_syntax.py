"""Syntax newer than the interpreter running phiml-rewrite (PEP 695, PEP 701 on Python 3.11).

CPython's parser is our cheap pre-check and the validator of every rewrite, but it only knows its
own version's grammar. libcst, which does all the analysis and editing, parses every grammar up to
Python 3.14. So a file that CPython rejects *at* a construct of a newer grammar, and that libcst
parses, is valid code for its authors' interpreter: it is analysed like any other file, with a note
that says why CPython could not check it. A syntax error anywhere else is still a syntax error.
"""
from __future__ import annotations

import ast
import functools
import sys
import warnings
from typing import Callable

from .lazy_libcst import cst


def newer_construct(module: cst.Module, line: int, column: int) -> str | None:
    """The newer-grammar construct of `module` at CPython's error position (1-based line, 1-based
    column), or None when the error lies elsewhere. `module` must be libcst's parse of the same code."""
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    finder = _finder()(line, column)
    wrapper.visit(finder)
    return finder.found


def read(source: bytes | str, py_error: SyntaxError,
         place: Callable[[int], str] | None = None) -> tuple[cst.Module, str] | None:
    """libcst's parse of `source` and the construct CPython rejected ("PEP 695 type parameters at
    line 3"), when CPython's `py_error` lies at a construct of a newer grammar; None otherwise.
    `place`: how to name a line of `source` ("cell 2, line 1" in a notebook's joined cells)."""
    try:
        module = cst.parse_module(source)
    except Exception:  # noqa: BLE001 - any failure: CPython's error is the one that stands
        return None
    construct = newer_construct(module, py_error.lineno or 0, py_error.offset or 0)
    if construct is None:
        return None
    line = py_error.lineno or 0
    return module, f"{construct} at {place(line) if place is not None else f'line {line}'}"


def check(source: bytes | str) -> str | None:
    """None when CPython parses `source`; else the reason it cannot, if it is only a newer grammar
    ("PEP 695 type parameters at line 3"); raises SyntaxError for a real syntax error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
        return None
    except SyntaxError as error:
        py_error = error
    found = read(source, py_error)
    if found is None:
        raise py_error
    return found[1]


def note(construct: str) -> str:
    """The one line a user reads about a file only a newer grammar reads: libcst reads it, and the analysis
    reads it lowered (analysis/lowering.py), which CPython's parser of this version cannot check a rewrite by."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    return (f"needs newer Python syntax than {version} ({construct}): analysed with those constructs lowered "
            f"to Python {version}'s; rewrites are checked with libcst's parser, not with Python {version}'s")


@functools.cache
def _finder() -> type:
    """The class below, made once libcst is imported (lazy_libcst)."""
    from libcst.metadata import PositionProvider

    class Finder(cst.CSTVisitor):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def __init__(self, line: int, column: int) -> None:
            super().__init__()
            self.line, self.column = line, column
            self.found: str | None = None

        def _covers(self, node: cst.CSTNode) -> bool:
            span = self.get_metadata(PositionProvider, node)
            start, end = (span.start.line, span.start.column + 1), (span.end.line, span.end.column + 1)
            return start <= (self.line, self.column) <= end

        def _mark(self, node: cst.CSTNode, construct: str) -> None:
            if self.found is None and self._covers(node):
                self.found = construct

        def visit_TypeAlias(self, node: cst.TypeAlias) -> None:
            self._mark(node, "PEP 695 `type` statement")

        def visit_TypeParameters(self, node: cst.TypeParameters) -> None:
            self._mark(node, "PEP 695 type parameters")

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            # CPython reports `def f[T]` at the name or the bracket, just before the parameters node
            if node.type_parameters is not None:
                self._mark_header(node, "PEP 695 type parameters")

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            if node.type_parameters is not None:
                self._mark_header(node, "PEP 695 type parameters")

        def _mark_header(self, node: cst.FunctionDef | cst.ClassDef, construct: str) -> None:
            name = self.get_metadata(PositionProvider, node.name)
            params = self.get_metadata(PositionProvider, node.type_parameters)
            if self.found is None and (name.start.line, name.start.column + 1) <= (self.line, self.column) \
                    <= (params.end.line, params.end.column + 1):
                self.found = construct

        def visit_FormattedString(self, node: cst.FormattedString) -> None:
            # PEP 701: quotes, backslashes, comments and line breaks inside replacement fields
            self._mark(node, "PEP 701 f-string")

    return Finder
