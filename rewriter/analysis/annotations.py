"""Type annotations that declare a Python value, not an array: what `equinox.filter_jit` keeps static.

`filter_jit` traces the arrays of its arguments and keeps every other leaf a Python value, part of
the cache key. A parameter annotated `tuple[int, int]`, or a field of an `equinox.Module` /
dataclass annotated `bool` or declared `field(static=True)`, is therefore static under it: branching
on it is the author's intent, not a traced condition. Read with CPython `ast` (the scanner of the
installed packages and the rules share it; rules hand over the annotation's code).
"""
from __future__ import annotations

import ast

_SCALARS = frozenset({"bool", "int", "float", "str", "complex", "None", "NoneType"})
_CONTAINERS = frozenset({"tuple", "Tuple", "list", "List", "Sequence", "Optional", "frozenset", "FrozenSet"})
_MODULE_BASES = frozenset({"Module", "eqx.Module", "equinox.Module"})


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def is_python_value(node: ast.expr | None) -> bool:
    """`int`, `bool | None`, `tuple[int, int]`, `Optional[str]`, `Literal["a", "b"]`, `tuple[int, ...]`."""
    if node is None:
        return False
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):  # a string annotation: read what it says
            try:
                return is_python_value(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                return False
        return node.value is None or node.value is Ellipsis
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _dotted(node).rpartition(".")[2] in _SCALARS
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return is_python_value(node.left) and is_python_value(node.right)
    if isinstance(node, ast.Subscript):
        head = _dotted(node.value).rpartition(".")[2]
        if head == "Literal":
            return True
        if head in _CONTAINERS or head == "Union":
            inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return all(is_python_value(e) for e in inner)
    return False


def annotation_of(code: str) -> ast.expr | None:
    try:
        return ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return None


def _static_field(value: ast.expr | None) -> bool:
    """`eqx.field(static=True)`, `field(static=True)`, `eqx.static_field()`."""
    if not isinstance(value, ast.Call):
        return False
    name = _dotted(value.func).rpartition(".")[2]
    if name == "static_field":
        return True
    return name == "field" and any(k.arg == "static" and isinstance(k.value, ast.Constant) and k.value.value is True
                                   for k in value.keywords)


def is_value_class(cls: ast.ClassDef) -> bool:
    """An `equinox.Module` subclass or a dataclass: its annotated fields are what its instances hold."""
    return any(_dotted(b) in _MODULE_BASES for b in cls.bases) or any(
        _dotted(d.func if isinstance(d, ast.Call) else d).rpartition(".")[2] == "dataclass" for d in cls.decorator_list)


def static_fields(cls: ast.ClassDef) -> list[str]:
    """The fields of a value class that hold Python values (never arrays) or are declared static."""
    if not is_value_class(cls):
        return []
    return sorted(stmt.target.id for stmt in cls.body
                  if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                  and (is_python_value(stmt.annotation) or _static_field(stmt.value)))


_SHAPE_READS = frozenset({"shape", "ndim", "dtype"})  # (not `size`: a PhiFlow geometry's is a tensor)


def shape_properties(cls: ast.ClassDef) -> list[str]:
    """The properties of a class that return a shape read of what the instance holds
    (`return self.pos.shape[-1]`, `len(self.x)`, `self.a.ndim + 1`): Python values under any
    transform, whatever the instance's arrays are, so `state.dim == 2` is no traced condition."""
    out = []
    for stmt in cls.body:
        if not isinstance(stmt, ast.FunctionDef) or not any(_dotted(d) == "property" for d in stmt.decorator_list):
            continue
        body = stmt.body[1:] if stmt.body and _docstring(stmt.body[0]) else stmt.body
        if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None \
                and _shape_read(body[0].value):
            out.append(stmt.name)
    return sorted(out)


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _shape_read(node: ast.expr) -> bool:
    """Built only of constants and what `.shape`/`.ndim`/`.dtype`/`len()` read."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Attribute):
        return node.attr in _SHAPE_READS
    if isinstance(node, ast.Subscript):
        return _shape_read(node.value) and (isinstance(node.slice, ast.Constant) or isinstance(node.slice, ast.UnaryOp)
                                            and isinstance(node.slice.operand, ast.Constant))
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 and not node.keywords
    if isinstance(node, ast.BinOp):
        return _shape_read(node.left) and _shape_read(node.right)
    if isinstance(node, ast.UnaryOp):
        return _shape_read(node.operand)
    if isinstance(node, ast.Tuple):
        return all(_shape_read(e) for e in node.elts)
    return False
