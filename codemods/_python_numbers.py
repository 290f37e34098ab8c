"""Whether an expression is certainly a plain Python number (PML401).

`equinox.filter_jit` keeps every argument that is not an array static, so a Python `int` or `float`
is a compile key there while a jax array of the same value is traced. A claim that an argument
re-compiles must therefore rest on proof that it is a Python number: literals, `int(...)`,
`float(...)`, `len(...)`, arithmetic on numbers, and names whose every binding is one of those (a
`range` counter, `t = 0.0` then `t += 0.5`, a module constant). A parameter is a number only where
it is annotated `int` or `float`: callers may pass anything else.
"""
from __future__ import annotations

import libcst as cst

from rewriter.analysis.names import NameResolver
from rewriter.analysis.scopes import BuiltinAssignment

_ALWAYS = frozenset({"int", "float", "len"})  # builtins whose result is a Python number whatever they get
_OF_NUMBERS = frozenset({"min", "max", "abs", "round"})  # numbers when every argument is one
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.Modulo)
_AUGMENTED = (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign, cst.FloorDivideAssign,
              cst.PowerAssign, cst.ModuloAssign)


def is_python_number(names: NameResolver, expr: cst.BaseExpression) -> bool:
    return _number(names, expr, set())


def _number(names: NameResolver, expr: cst.BaseExpression, seen: set[int]) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return _number(names, expr.expression, seen)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ARITHMETIC):
        return _number(names, expr.left, seen) and _number(names, expr.right, seen)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and _builtin(names, expr.func):
        if any(a.star or a.keyword is not None for a in expr.args) or not expr.args:
            return False
        if expr.func.value in _ALWAYS:
            return True
        return expr.func.value in _OF_NUMBERS and all(_number(names, a.value, seen) for a in expr.args)
    if isinstance(expr, cst.Name):
        bindings = names.assignments(expr)
        return bool(bindings) and not any(isinstance(b, BuiltinAssignment) for b in bindings) and all(_binding(names, getattr(b, "node", None), seen) for b in bindings)
    return False


def _builtin(names: NameResolver, func: cst.Name) -> bool:
    assignments = names.assignments(func)
    return bool(assignments) and all(isinstance(a, BuiltinAssignment) for a in assignments)


def _binding(names: NameResolver, node: cst.CSTNode | None, seen: set[int]) -> bool:
    """A binding (the target Name, or a Param) that certainly holds a Python number."""
    if id(node) in seen:
        return True  # `t = t + dt`: decided by the other bindings
    seen.add(id(node))
    if isinstance(node, cst.Param):
        return node.annotation is not None and isinstance(node.annotation.annotation, cst.Name) \
            and node.annotation.annotation.value in ("int", "float")
    if not isinstance(node, cst.Name):
        return False
    parent = names.parent(node)
    if isinstance(parent, cst.AugAssign):
        return isinstance(parent.operator, _AUGMENTED) and _number(names, parent.value, seen)
    if isinstance(parent, cst.AnnAssign):
        return parent.value is not None and _number(names, parent.value, seen)
    if isinstance(parent, cst.AssignTarget):
        assign = names.parent(parent)
        return isinstance(assign, cst.Assign) and _number(names, assign.value, seen)
    if isinstance(parent, cst.Element) and isinstance(names.parent(parent), cst.Tuple):
        return _unpacked(names, node, parent, seen)
    if isinstance(parent, cst.For) and parent.target is node:
        iterable = parent.iter
        return isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) \
            and iterable.func.value == "range" and _builtin(names, iterable.func)
    return False


def _unpacked(names: NameResolver, node: cst.Name, element: cst.Element, seen: set[int]) -> bool:
    """`N_MIN, N_STEP = 1, 1`, and `for i, x in enumerate(...)` (the index)."""
    target = names.parent(element)
    index = next((i for i, e in enumerate(target.elements) if e is element), None)
    holder = names.parent(target)
    if isinstance(holder, cst.AssignTarget):
        assign = names.parent(holder)
        value = assign.value if isinstance(assign, cst.Assign) else None
        if isinstance(value, cst.Tuple) and len(value.elements) == len(target.elements) \
                and not any(isinstance(e, cst.StarredElement) for e in value.elements):
            return _number(names, value.elements[index].value, seen)
        return False
    if isinstance(holder, cst.For) and holder.target is target and index == 0:
        iterable = holder.iter
        return isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) \
            and iterable.func.value == "enumerate" and _builtin(names, iterable.func)
    return False
