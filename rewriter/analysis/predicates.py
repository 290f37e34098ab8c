"""Functions that answer a question about types or pytree structure, never about values.

`diffrax.is_sde(terms)` flattens a pytree and asks `isinstance` of its leaves: whatever is traced in
`terms`, the answer is a Python bool at trace time, so branching on it is static. A function is such
a predicate when every value it returns is built only from `isinstance` / `issubclass` / `callable` /
`hasattr`, identity tests (`x is None`), constants, `not` / `and` / `or`, `any` / `all` over a
generator of such tests, and calls of other predicates of the same module. Read with CPython `ast`:
the scanner of the installed packages records them (`_installed.TYPE_PREDICATES`).
"""
from __future__ import annotations

import ast

_TYPE_QUESTIONS = frozenset({"isinstance", "issubclass", "callable", "hasattr", "is_leaf", "is_array", "is_array_like"})
_FOLDS = frozenset({"any", "all", "bool"})


def type_predicates(tree: ast.Module) -> list[str]:
    """The top-level functions of a module that are type predicates (a fixpoint over their calls)."""
    candidates = {}  # name -> the values its returns return, for functions that may be predicates
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            values = _returned(stmt)
            if values is not None:
                candidates[stmt.name] = values
    known: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, values in candidates.items():
            if name not in known and all(_question(v, known) for v in values):
                known.add(name)
                changed = True
    return sorted(known)


def _returned(fn: ast.FunctionDef) -> list[ast.expr] | None:
    """What each `return` of `fn` returns; None for a generator, a bare `return`, or no return."""
    values = []
    for node in ast.walk(fn):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(node, ast.Return):
            if node.value is None:
                return None
            values.append(node.value)
    return values or None


def _question(node: ast.expr, known: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, ast.BoolOp):
        return all(_question(v, known) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _question(node.operand, known)
    if isinstance(node, ast.Compare):
        return all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops)
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else ""
        if name in _TYPE_QUESTIONS or isinstance(node.func, ast.Name) and name in known:
            return True
        if name in _FOLDS and len(node.args) == 1 and not node.keywords:
            arg = node.args[0]
            if isinstance(arg, ast.GeneratorExp):
                return _question(arg.elt, known)
            return _question(arg, known)
    return False
