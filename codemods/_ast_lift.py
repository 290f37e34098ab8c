"""Lifting a nested def to module level, decided on `ast` (PML102): where it is and what runs it.

_lift.py writes the lifted def on libcst; this module reads, on CPython's `ast`, what that writing needs
to be safe: the enclosing function, the top-level statement the def goes before, and whether its
decorators may run at import.
"""
from __future__ import annotations

import ast

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_captures import ancestors
from rewriter.analysis.ast_jit import match_transform

from ._lift import EAGER_TRANSFORMS

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def enclosing_function(resolver, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None:
    """The innermost def or lambda around `node` (a class between them is passed through)."""
    return next((a for a in ancestors(resolver, node) if type(a) in _FUNCTIONS), None)  # type: ignore[return-value]


def top_level_statement(resolver, node: ast.AST) -> ast.stmt | None:
    """The statement of the module's body that holds `node`."""
    module = resolver.module_node
    for a in (node, *ancestors(resolver, node)):
        if resolver.parent(a) is module:
            return a  # type: ignore[return-value]
    return None


def is_called(resolver, node: ast.AST) -> bool:
    """`node(...)`: the node is the callee of its parent."""
    parent = resolver.parent(node)
    return type(parent) is ast.Call and parent.func is node


def eager_decorator(file, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """Why `fn`'s decorators must keep running where the def is (None: they only wrap lazily)."""
    for decorator in fn.decorator_list:
        transform = match_transform(file.names, decorator, (Kind.JIT,))
        if transform is None:
            return f"its decorator `{file.reading.text(decorator)}` runs when the def runs; at module level it would run at import"
        if transform.api.name in EAGER_TRANSFORMS:
            return f"`{transform.api.name}` compiles when the def runs; at module level it would compile at import"
    return None
