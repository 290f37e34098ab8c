"""Where a node sits, read on CPython's `ast`: its enclosing function, loops and statements, as libcst's
tree has them (the rules' fixes are written there).

Statements are libcst's: the simple statements written on one line (`a = 1; b = 2`) are one statement
there (a `SimpleStatementLine`), which `line_head` stands for (the first of them); a simple statement in a
one-line suite (`if c: x = 1`) is no statement of its own, its compound statement is. `block_of` says which
block a statement is in (libcst's `IndentedBlock` or module: a parent and the field of it that holds the
statement); an `elif` is no statement of a block (libcst has it as the `orelse` of its `if`).

"Per iteration" is exact: a `for` loop's iterable and `else` run once, its body per iteration; a `while`
loop's test and body per iteration; a comprehension's outermost iterable once, the rest per element.
"""
from __future__ import annotations

import ast
from ast import (AnnAssign, AsyncFor, AsyncFunctionDef, AsyncWith, ClassDef, DictComp, ExceptHandler, For, FunctionDef,
                 GeneratorExp, If, Lambda, ListComp, Match, SetComp, Try, TryStar, While, With)
from typing import Iterator

_FUNCTIONS = (FunctionDef, AsyncFunctionDef, Lambda)
_COMPOUND = (If, For, AsyncFor, While, With, AsyncWith, Try, TryStar,
             FunctionDef, AsyncFunctionDef, ClassDef, Match)
_COMPREHENSIONS = (ListComp, SetComp, DictComp, GeneratorExp)
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def ancestors(resolver, node: ast.AST) -> Iterator[ast.AST]:
    current = resolver.parent(node)
    while current is not None:
        yield current
        current = resolver.parent(current)


def enclosing_function(resolver, node: ast.AST) -> ast.AST | None:
    """The innermost def or lambda around `node` (a class between them is passed through)."""
    return next((a for a in ancestors(resolver, node) if type(a) in _FUNCTIONS), None)


def enclosing_loops(resolver, node: ast.AST) -> list[ast.AST]:
    """Loops (innermost first) in which `node` runs once per iteration, up to the enclosing function."""
    loops = []
    child = node
    for a in ancestors(resolver, node):
        if type(a) in (*_FUNCTIONS, ClassDef):
            break
        if type(a) in (For, AsyncFor):
            if any(child is s for s in a.body):  # type: ignore[attr-defined]
                loops.append(a)
        elif type(a) is While:
            if any(child is s for s in a.body) or child is a.test:  # type: ignore[attr-defined]
                loops.append(a)
        elif type(a) in _COMPREHENSIONS and not is_inside(resolver, node, a.generators[0].iter):  # type: ignore[attr-defined]
            loops.append(a)
        child = a
    return loops


def is_inside(resolver, node: ast.AST, container: ast.AST) -> bool:
    return node is container or any(a is container for a in ancestors(resolver, node))


def block_of(resolver, statement: ast.AST) -> tuple[int, str] | None:
    """The block `statement` is in: its parent's id and the field that holds it (None: it is in none)."""
    parent = resolver.parent(statement)
    if parent is None:
        return None
    for field in _BLOCK_FIELDS:
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is statement for s in block):
            return id(parent), field
    return None


def line_head(resolver, lines: list[str], statement: ast.stmt) -> ast.stmt | None:
    """The first simple statement of the line `statement` is on (libcst's `SimpleStatementLine`), or None
    when it is in a one-line suite (`if c: x = 1`: no statement of its own on libcst)."""
    parent = resolver.parent(statement)
    key = block_of(resolver, statement)
    if parent is None or key is None:
        return statement
    block = getattr(parent, key[1])
    index = next(i for i, s in enumerate(block) if s is statement)
    while index and block[index - 1].end_lineno >= block[index].lineno:
        index -= 1
    head = block[index]
    return head if not lines[head.lineno - 1][:_column(lines, head)].strip() else None


def enclosing_statement(resolver, lines: list[str], node: ast.AST) -> ast.stmt | None:
    """The innermost statement that contains `node`, as libcst has it (structure.enclosing_statement): a
    compound statement, or the line of simple statements (its `line_head`)."""
    for a in (node, *ancestors(resolver, node)):
        if type(a) in _COMPOUND:
            return a  # type: ignore[return-value]
        if isinstance(a, ast.stmt):
            head = line_head(resolver, lines, a)
            if head is not None:
                return head
    return None


def top_level_statement(resolver, lines: list[str], node: ast.AST) -> ast.stmt | None:
    """The statement of the module's body that holds `node` (for simple statements, its line's head)."""
    module = resolver.module_node
    for a in (node, *ancestors(resolver, node)):
        if resolver.parent(a) is module:
            return a if type(a) in _COMPOUND else line_head(resolver, lines, a)  # type: ignore[return-value, arg-type]
    return None


def is_elif(resolver, lines: list[str], node: ast.AST) -> bool:
    """`node` is the `elif` of an `if` (libcst's `If.orelse`, in no block)."""
    parent = resolver.parent(node)
    return type(node) is If and type(parent) is If and any(s is node for s in parent.orelse) \
        and lines[node.lineno - 1][_column(lines, node):].startswith("elif")


def _column(lines: list[str], node: ast.AST) -> int:
    """`node`'s column in characters (`ast` counts UTF-8 bytes)."""
    line = lines[node.lineno - 1]  # type: ignore[attr-defined]
    return len(line.encode()[:node.col_offset].decode(errors="replace"))  # type: ignore[attr-defined]


def defined_before(resolver, fn: ast.AST, name: str, node: ast.AST) -> bool:
    """`name` has a value when `node` runs: a parameter of `fn`, or assigned in `fn` earlier in the text
    (as libcst's reading answered it: tests/test_ast_emit.py; `ast`'s columns count bytes, which order the
    places of one line alike).
    Two bindings give no value there: an annotation without one (`y: int`), and `except ... as y` outside its
    handler (Python deletes the name at the handler's end)."""
    if type(fn) in _FUNCTIONS:
        a = fn.args  # type: ignore[attr-defined]
        if name in {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}:
            return True
    scope = resolver.scope(node)
    if scope is None or name not in scope:
        return False
    begin = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    for assignment in scope.assignments[name]:
        target = getattr(assignment, "node", None)
        if target is None or (target.lineno, target.col_offset) >= begin:
            continue
        if type(target) is ExceptHandler:
            if is_inside(resolver, node, target):
                return True
            continue
        parent = resolver.parent(target)
        if isinstance(parent, AnnAssign) and parent.target is target and parent.value is None:
            continue
        return True
    return False
