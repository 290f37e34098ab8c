"""What an expression is, read from source: a Python number or an array of known dtype and shape.

Only what the source states is believed: literals, array constructors with literal shapes and
dtypes (`constructors`), and what numpy, jax and PhiML make of described arrays: arithmetic,
indexing, comprehensions (`operators`), reshapes and stacking (`shapes`). A name is looked up in the environment its scope's flow
gives at that point (`flow`). Anything else is unknown (None), and `Context.why` says why: the
caller reports it instead of guessing.

Descriptions: `scalar`, `array`, and two that only feed others: `literal` (a tuple or list of
numbers, e.g. a shape) and `sequence` (a list of described values, e.g. what `stack` takes).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Mapping

from ...analysis import ast_names
from . import shapes

# The dtype a framework gives a list of Python numbers (jax without x64, PhiML's default precision).
DEFAULT = {"jax": {"float": "float32", "int": "int32", "bool": "bool"},
           "numpy": {"float": "float64", "int": "int64", "bool": "bool"},
           "phiml": {"float": "float32", "int": "int64", "bool": "bool"}}
DTYPES = {"float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"}
PHIML_DIMS = {"spatial", "channel", "batch", "instance", "dual"}
MAX_DEPTH = 24


def scalar(kind: str, value=None) -> dict:
    return {"kind": "scalar", "type": kind, "value": value}


def array(framework: str, dtype: str, shape: list[int], value=None, dims: list[list[str]] | None = None,
          items: list[list[str] | None] | None = None) -> dict:
    """`dims`: PhiML dimension [name, type] per axis (a PhiML tensor), else None (a plain array);
    `items`: PhiML item names per axis (None where the axis has none), only when some axis has them."""
    out = {"kind": "array", "framework": framework, "dtype": dtype, "shape": list(shape), "value": value, "dims": dims}
    if items and any(items):
        out["items"] = items
    return out


@dataclass
class Context:
    """`env`: name -> description, the reason it is unknown (str), or an expression to describe there;
    `call`: describes a call of a project function (its return), or None; `why`: the reasons seen."""
    env: Mapping[str, object]
    call: Callable[[ast.Call, "Context", int], dict | None] | None = None
    why: list[str] = field(default_factory=list)

    def unknown(self, reason: str) -> dict | None:
        self.why.append(reason)
        return None


def framework_of(module: str) -> str | None:
    top = module.split(".")[0]
    if module in ("jnp", "jax.numpy") or top == "jax":
        return "jax"
    if top in ("np", "numpy"):
        return "numpy"
    if module in ("math", "phiml.math", "phi.math") or top in ("phiml", "phi"):
        return "phiml"
    return None


def literal_kind(values) -> str | None:
    kinds = {type(v) for v in values}
    if kinds <= {bool}:
        return "bool"
    if kinds <= {int, bool}:
        return "int"
    if kinds <= {int, float, bool}:
        return "float"
    return None


def nested(value):
    """A literal nested list of numbers: (shape, flat values, value), or None."""
    if isinstance(value, tuple):
        value = list(value)
    shape, level = [], [value]
    while level and all(isinstance(v, (list, tuple)) for v in level):
        sizes = {len(v) for v in level}
        if len(sizes) != 1:
            return None
        shape.append(sizes.pop())
        level = [x for v in level for x in v]
    if not all(isinstance(v, (int, float, bool)) for v in level):
        return None
    return shape, level, value


def literal(node: ast.expr):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def dotted(node: ast.expr) -> str:
    """`a.b.c` for a Name/Attribute chain, else "" (`ast_names.dotted`, which says None)."""
    return ast_names.dotted(node) or ""


def dtype_name(node: ast.expr | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if node.value in DTYPES else None
    name = dotted(node).rsplit(".", 1)[-1]
    if name in ("float", "int", "bool"):
        return None  # the framework's default for that kind: left to the caller
    return name if name in DTYPES else None


def shape_of(desc: dict | None) -> list[int] | None:
    """A literal shape: an int, or a tuple or list of ints."""
    if desc is None:
        return None
    value = desc.get("value")
    if desc["kind"] == "scalar" and desc["type"] == "int" and isinstance(value, int) and value >= 0:
        return [value]
    if desc["kind"] == "literal" and isinstance(value, (list, tuple)) and \
            all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return list(value)
    return None


def phiml_dims(node: ast.expr):
    """`spatial('x')`, `spatial(x=3)`, `channel(vector='x,y')`, `batch(b=2) & spatial('x, y')`:
    (dims [name, type], sizes (None: not given), item names (None: none)), or None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
        left, right = phiml_dims(node.left), phiml_dims(node.right)
        return tuple(a + b for a, b in zip(left, right)) if left and right else None
    if not (isinstance(node, ast.Call) and dotted(node.func).rsplit(".", 1)[-1] in PHIML_DIMS):
        return None
    kind = dotted(node.func).rsplit(".", 1)[-1]
    dims, sizes, items = [], [], []
    for arg in node.args:
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            return None
        for name in arg.value.replace(" ", "").split(","):
            if name:
                dims.append([name, kind])
                sizes.append(None)
                items.append(None)
    for kw in node.keywords:
        value = kw.value.value if isinstance(kw.value, ast.Constant) else None
        if kw.arg is None or isinstance(value, bool):
            return None
        if isinstance(value, int):
            dims.append([kw.arg, kind])
            sizes.append(value)
            items.append(None)
        elif isinstance(value, str) and value.replace(" ", ""):
            names = value.replace(" ", "").split(",")
            dims.append([kw.arg, kind])
            sizes.append(len(names))
            items.append(names)
        else:
            return None
    return dims, sizes, items


def describe(node: ast.expr, env: Mapping[str, object], depth: int = 0, context: Context | None = None) -> dict | None:
    """The expression `node` as a description, or None when the source does not say (`context.why`: why)."""
    ctx = context or Context(env)
    return _describe(node, ctx, depth)


def text(node: ast.expr) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


def _describe(node: ast.expr, ctx: Context, depth: int) -> dict | None:
    if depth > MAX_DEPTH:
        return ctx.unknown(f"`{text(node)}` is nested too deeply to follow")
    d = depth + 1
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (int, float)) and not isinstance(node.value, complex):
            return scalar(literal_kind([node.value]), node.value)
        return ctx.unknown(f"`{text(node)}` is not a number")
    if isinstance(node, (ast.Tuple, ast.List)):
        value = literal(node)
        if value is not None and nested(value) is not None:
            return {"kind": "literal", "value": value}
        elts = [_describe(e, ctx, d) for e in node.elts]
        return {"kind": "sequence", "items": elts} if None not in elts and not any(isinstance(e, ast.Starred) for e in node.elts) \
            else None
    if isinstance(node, ast.Name):
        if node.id not in ctx.env:
            return ctx.unknown(f"`{node.id}` is not assigned where the flow can follow it")
        bound = ctx.env[node.id]
        if isinstance(bound, str):
            return ctx.unknown(bound)
        if isinstance(bound, ast.AST):
            return _describe(bound, ctx, d)
        return bound
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _describe(node.operand, ctx, d)
        if inner is None or inner["kind"] not in ("scalar", "array") or (inner["kind"] == "array" and inner["dtype"] == "bool"):
            return None if inner is None else ctx.unknown(f"`{text(node)}`: a sign of something not a number")
        if inner["kind"] == "scalar" and inner["value"] is not None:
            return {**inner, "value": -inner["value"] if isinstance(node.op, ast.USub) else inner["value"]}
        return {**inner, "value": None}
    if isinstance(node, ast.BinOp):
        from . import operators

        return operators.binary(node, ctx, d, _describe)
    if isinstance(node, ast.Attribute):
        base = _describe(node.value, ctx, d)
        if base and base["kind"] == "array" and node.attr == "T" and base["framework"] != "phiml":
            return shapes.with_shape(base, base["shape"][::-1])
        return None if base is None else ctx.unknown(f"`{text(node)}` is not an array the source describes")
    if isinstance(node, ast.Subscript):
        from . import operators

        return operators.subscript(node, ctx, d, _describe)
    if isinstance(node, ast.Call):
        from . import constructors

        if ctx.call is not None and isinstance(node.func, ast.Name) and node.func.id not in ctx.env:
            out = ctx.call(node, ctx, d)  # a project function whose return is described
            if out is not None:
                return out
        return constructors.call(node, ctx, d, _describe)
    if isinstance(node, ast.ListComp):
        from . import operators

        return operators.comprehension(node, ctx, d, _describe)
    return ctx.unknown(f"`{text(node)}` is not a value synthesis can describe")

