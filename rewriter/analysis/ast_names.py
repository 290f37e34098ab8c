"""Names read off CPython's `ast` (the pre-filter and the project summaries; names.py does it on libcst),
and walks of it that cost less than `ast.walk`/`ast.iter_child_nodes` (a generator per node, and
`iter_fields` per field): these take each class's fields from `_fields`, once."""
from __future__ import annotations

import ast
from typing import Iterator

_AST = ast.AST
_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)


def children(node: ast.AST) -> list[ast.AST]:
    """The nodes `ast.iter_child_nodes(node)` yields, in the same order."""
    out = []
    for name in node._fields:
        value = getattr(node, name, None)
        if type(value) is list:
            out.extend([item for item in value if isinstance(item, _AST)])
        elif isinstance(value, _AST):
            out.append(value)
    return out


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node below `node` and itself, in no particular order (`ast.walk` without its order)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def breadth_first(node: ast.AST) -> Iterator[ast.AST]:
    """Every node below `node` and itself, in `ast.walk`'s order (breadth first)."""
    queue = [node]
    i = 0
    while i < len(queue):
        current = queue[i]
        i += 1
        queue.extend(children(current))
        yield current


def statements(tree: ast.AST) -> Iterator[ast.stmt]:
    """The statements of `tree` at any depth, in the order `ast.walk` meets them (breadth first),
    without entering expressions, which hold no statements."""
    queue = [tree]
    i = 0
    while i < len(queue):
        node = queue[i]
        i += 1
        if isinstance(node, ast.stmt):
            yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                queue.extend(item for item in value if isinstance(item, _BLOCKS))


def dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
