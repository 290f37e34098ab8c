"""What an expression is, read from source: a Python number or an array of known dtype and shape.

Only what the source states is believed: literals, array constructors with literal shapes and
dtypes (`constructors`), and what numpy, jax and PhiML make of described arrays: arithmetic,
indexing, reshapes, stacking (`shapes`). A name is looked up in the environment its scope's flow
gives at that point (`flow`). Anything else is unknown (None), and `Context.why` says why: the
caller reports it instead of guessing.

Descriptions: `scalar`, `array`, and two that only feed others: `literal` (a tuple or list of
numbers, e.g. a shape) and `sequence` (a list of described values, e.g. what `stack` takes).
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import Callable, Mapping

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

    def unknown(self, reason: str) -> None:
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
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


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


def _text(node: ast.expr) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


def _describe(node: ast.expr, ctx: Context, depth: int) -> dict | None:
    if depth > MAX_DEPTH:
        return ctx.unknown(f"`{_text(node)}` is nested too deeply to follow")
    d = depth + 1
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (int, float)) and not isinstance(node.value, complex):
            return scalar(literal_kind([node.value]), node.value)
        return ctx.unknown(f"`{_text(node)}` is not a number")
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
            return None if inner is None else ctx.unknown(f"`{_text(node)}`: a sign of something not a number")
        if inner["kind"] == "scalar" and inner["value"] is not None:
            return {**inner, "value": -inner["value"] if isinstance(node.op, ast.USub) else inner["value"]}
        return {**inner, "value": None}
    if isinstance(node, ast.BinOp):
        return _binary(node, ctx, d)
    if isinstance(node, ast.Attribute):
        base = _describe(node.value, ctx, d)
        if base and base["kind"] == "array" and node.attr == "T" and base["framework"] != "phiml":
            return shapes.with_shape(base, base["shape"][::-1])
        return None if base is None else ctx.unknown(f"`{_text(node)}` is not an array the source describes")
    if isinstance(node, ast.Subscript):
        return _subscript(node, ctx, d)
    if isinstance(node, ast.Call):
        from . import constructors

        if ctx.call is not None and isinstance(node.func, ast.Name) and not isinstance(ctx.env.get(node.func.id), dict):
            out = ctx.call(node, ctx, d)  # a project function whose return is described
            if out is not None:
                return out
        return constructors.call(node, ctx, d, _describe)
    if isinstance(node, ast.ListComp):
        return _comprehension(node, ctx, d)
    return ctx.unknown(f"`{_text(node)}` is not a value synthesis can describe")


def _scalar_of(ctx: Context, depth: int):
    return lambda n: _describe(n, Context(ctx.env, ctx.call), depth)


def _subscript(node: ast.Subscript, ctx: Context, depth: int) -> dict | None:
    scalar_of = _scalar_of(ctx, depth)
    if isinstance(node.value, ast.Attribute):  # PhiML `x.dim[i]`
        base = _describe(node.value.value, Context(ctx.env, ctx.call), depth)
        if base and base["kind"] == "array" and base["framework"] == "phiml":
            out = shapes.select(base, node.value.attr, node.slice, scalar_of)
            return out or ctx.unknown(f"`{_text(node)}`: a selection the source does not pin down")
    base = _describe(node.value, ctx, depth)
    if base is None:
        return None
    if base["kind"] == "array":
        out = shapes.index(base, node.slice, scalar_of)
        return out or ctx.unknown(f"`{_text(node)}`: an index that is not basic (ints, slices, None)")
    if base["kind"] == "sequence":
        i = scalar_of(node.slice)
        if i and i["kind"] == "scalar" and i["type"] == "int" and i["value"] is not None and \
                -len(base["items"]) <= i["value"] < len(base["items"]):
            return base["items"][i["value"]]
    return ctx.unknown(f"`{_text(node)}` is not an array the source describes")


def _binary(node: ast.BinOp, ctx: Context, depth: int) -> dict | None:
    op = node.op
    left, right = _describe(node.left, ctx, depth), _describe(node.right, ctx, depth)
    if left is None or right is None:
        return None
    if left["kind"] not in ("scalar", "array") or right["kind"] not in ("scalar", "array"):
        return ctx.unknown(f"`{_text(node)}`: arithmetic on something not a number or array")
    if isinstance(op, ast.MatMult):
        out = shapes.matmul(left, right) if left["kind"] == right["kind"] == "array" else None
        return out or ctx.unknown(f"`{_text(node)}`: a matrix product of shapes that do not fit")
    if not isinstance(op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
        return ctx.unknown(f"`{_text(node)}`: an operator synthesis does not follow")
    if left["kind"] == right["kind"] == "scalar":
        if isinstance(op, ast.Div):
            return scalar("float")
        if isinstance(op, ast.Pow) and "float" not in (left["type"], right["type"]):
            return ctx.unknown(f"`{_text(node)}`: an int power's sign decides its type")
        kind = "float" if "float" in (left["type"], right["type"]) else "int"
        return scalar(kind)
    if left["kind"] == right["kind"] == "array":
        dtype = shapes.promote(left["framework"], left["dtype"], right["dtype"])
        if isinstance(op, (ast.Div, ast.Pow)) and dtype and not shapes.is_float(dtype):
            dtype = None
        out = shapes.broadcast(left, right, dtype) if dtype else None
        return out or ctx.unknown(f"`{_text(node)}`: arrays whose shapes or dtypes do not combine plainly")
    arr, num = (left, right) if left["kind"] == "array" else (right, left)
    dtype = shapes.scalar_result(arr["framework"], arr["dtype"], num["type"], op)
    if dtype is None:
        return ctx.unknown(f"`{_text(node)}`: an {arr['dtype']} array with a Python {num['type']} changes its dtype")
    return shapes.with_shape(arr, arr["shape"], arr.get("dims"), arr.get("items"), dtype)


def iteration(node: ast.expr, ctx: Context, depth: int) -> tuple[int | None, dict | None]:
    """What a `for` over `node` binds: (how many times, the element's description)."""
    if isinstance(node, ast.Call) and dotted(node.func) == "range" and node.args and not node.keywords:
        bounds = [_describe(a, ctx, depth) for a in node.args]
        if None in bounds or any(b["kind"] != "scalar" or b["type"] != "int" for b in bounds):
            return None, None
        values = [b["value"] for b in bounds]
        count = len(range(*values)) if None not in values and (len(values) < 3 or values[2]) else None
        return count, scalar("int")
    desc = _describe(node, ctx, depth)
    if desc is None:
        return None, None
    if desc["kind"] == "literal" and isinstance(desc["value"], (list, tuple)) and \
            all(isinstance(v, (int, float)) for v in desc["value"]) and desc["value"]:
        values = desc["value"]
        return len(values), scalar(literal_kind(values), values[0] if len(set(values)) == 1 else None)
    if desc["kind"] == "literal" and isinstance(desc["value"], (list, tuple)) and desc["value"] and \
            all(isinstance(v, (list, tuple)) for v in desc["value"]):
        found = [nested(v) for v in desc["value"]]  # rows of one shape: the first is what the first iteration binds
        if None not in found and len({json.dumps(f[0]) for f in found}) == 1 and \
                len({literal_kind(f[1]) for f in found}) == 1:
            return len(found), {"kind": "literal", "value": desc["value"][0]}
    if desc["kind"] == "sequence" and desc["items"]:
        first = {k: v for k, v in desc["items"][0].items() if k != "value"}
        if all({k: v for k, v in d.items() if k != "value"} == first for d in desc["items"]):
            return len(desc["items"]), {**desc["items"][0], "value": None}
    if desc["kind"] == "array" and desc["framework"] != "phiml" and desc["shape"]:
        return desc["shape"][0], shapes.with_shape(desc, desc["shape"][1:])
    return None, ctx.unknown(f"`{_text(node)}`: an iteration whose elements differ or are not described")


def _comprehension(node: ast.ListComp, ctx: Context, depth: int) -> dict | None:
    """`[f(c) for c in (0.3, 0.5)]`: as many items as the iterable, each the element's description."""
    if len(node.generators) != 1 or node.generators[0].ifs or not isinstance(node.generators[0].target, ast.Name):
        return ctx.unknown(f"`{_text(node)}`: a comprehension with filters or several loops")
    gen = node.generators[0]
    count, element = iteration(gen.iter, ctx, depth)
    if count is None or element is None:
        return ctx.unknown(f"`{_text(node)}`: a comprehension over something whose length the source does not state")
    inner = Context({**ctx.env, gen.target.id: element}, ctx.call, ctx.why)
    item = _describe(node.elt, inner, depth)
    return {"kind": "sequence", "items": [item] * count} if item is not None else None
