"""Whether an expression is certainly a plain Python number (PML401).

`equinox.filter_jit` keeps every argument that is not an array static, so a Python `int` or `float`
is a compile key there while a jax array of the same value is traced. A claim that an argument
re-compiles must therefore rest on proof that it is a Python number: literals, `int(...)`,
`float(...)`, `len(...)`, arithmetic on numbers, and names whose every binding is one of those (a
`range` counter, `t = 0.0` then `t += 0.5`, a module constant). A parameter is a number only where
it is annotated `int` or `float`: callers may pass anything else.
"""
from __future__ import annotations

import ast

from rewriter.analysis.ast_resolver import NameResolver
from rewriter.analysis.scope_model import BuiltinAssignment

_ALWAYS = frozenset({"int", "float", "len"})  # builtins whose result is a Python number whatever they get
_OF_NUMBERS = frozenset({"min", "max", "abs", "round"})  # numbers when every argument is one
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.Mod)
_FORS = (ast.For, ast.AsyncFor)


def is_python_number(names: NameResolver, expr: ast.expr) -> bool:
    return _number(names, expr, set())


def _number(names: NameResolver, expr: ast.expr, seen: set[int]) -> bool:
    if isinstance(expr, ast.Constant):
        return type(expr.value) in (int, float)  # (not `True`, a builtin's name on libcst; not `1j`)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _number(names, expr.operand, seen)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _ARITHMETIC):
        return _number(names, expr.left, seen) and _number(names, expr.right, seen)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and _builtin(names, expr.func):
        if expr.keywords or not expr.args or any(isinstance(a, ast.Starred) for a in expr.args):
            return False
        if expr.func.id in _ALWAYS:
            return True
        return expr.func.id in _OF_NUMBERS and all(_number(names, a, seen) for a in expr.args)
    if isinstance(expr, ast.Name):
        bindings = names.assignments(expr)
        return bool(bindings) and not any(isinstance(b, BuiltinAssignment) for b in bindings) \
            and all(_binding(names, getattr(b, "node", None), seen) for b in bindings)
    return False


def _builtin(names: NameResolver, func: ast.Name) -> bool:
    assignments = names.assignments(func)
    return bool(assignments) and all(isinstance(a, BuiltinAssignment) for a in assignments)


def _binding(names: NameResolver, node: ast.AST | None, seen: set[int]) -> bool:
    """A binding (the target name, or a parameter) that certainly holds a Python number."""
    if id(node) in seen:
        return True  # `t = t + dt`: decided by the other bindings
    seen.add(id(node))
    if isinstance(node, ast.arg):
        return isinstance(node.annotation, ast.Name) and node.annotation.id in ("int", "float")
    if not isinstance(node, ast.Name):
        return False
    parent = names.parent(node)
    if isinstance(parent, ast.AugAssign):
        return isinstance(parent.op, _ARITHMETIC) and _number(names, parent.value, seen)
    if isinstance(parent, ast.AnnAssign):
        return parent.value is not None and _number(names, parent.value, seen)
    if isinstance(parent, ast.Assign):
        return _number(names, parent.value, seen)
    if isinstance(parent, ast.Tuple):
        return _unpacked(names, node, parent, seen)
    if isinstance(parent, _FORS) and parent.target is node:
        iterable = parent.iter
        return isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) \
            and iterable.func.id == "range" and _builtin(names, iterable.func)
    return False


def _unpacked(names: NameResolver, node: ast.Name, target: ast.Tuple, seen: set[int]) -> bool:
    """`N_MIN, N_STEP = 1, 1`, and `for i, x in enumerate(...)` (the index)."""
    index = next(i for i, e in enumerate(target.elts) if e is node)
    holder = names.parent(target)
    if isinstance(holder, ast.Assign) and any(t is target for t in holder.targets):
        value = holder.value
        if isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in value.elts):
            return _number(names, value.elts[index], seen)
        return False
    if isinstance(holder, _FORS) and holder.target is target and index == 0:
        iterable = holder.iter
        return isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) \
            and iterable.func.id == "enumerate" and _builtin(names, iterable.func)
    return False
