"""Expressions built from described values: arithmetic (`+ - * / ** @`) and subscripts as numpy,
jax and PhiML apply them (`shapes`), and what a loop or comprehension binds. `_describe` is
`values`' own, passed in to describe the parts."""
from __future__ import annotations

import ast
import json

from . import shapes
from .values import Context, dotted, literal_kind, nested, scalar, text


def _scalar_of(ctx: Context, depth: int, _describe):
    return lambda n: _describe(n, Context(ctx.env, ctx.call), depth)


def subscript(node: ast.Subscript, ctx: Context, depth: int, _describe) -> dict | None:
    scalar_of = _scalar_of(ctx, depth, _describe)
    if isinstance(node.value, ast.Attribute):  # PhiML `x.dim[i]`
        base = _describe(node.value.value, Context(ctx.env, ctx.call), depth)
        if base and base["kind"] == "array" and base["framework"] == "phiml":
            out = shapes.select(base, node.value.attr, node.slice, scalar_of)
            return out or ctx.unknown(f"`{text(node)}`: a selection the source does not pin down")
    base = _describe(node.value, ctx, depth)
    if base is None:
        return None
    if base["kind"] == "array":
        out = shapes.index(base, node.slice, scalar_of)
        return out or ctx.unknown(f"`{text(node)}`: an index that is not basic (ints, slices, None)")
    if base["kind"] == "sequence":
        i = scalar_of(node.slice)
        if i and i["kind"] == "scalar" and i["type"] == "int" and i["value"] is not None and \
                -len(base["items"]) <= i["value"] < len(base["items"]):
            return base["items"][i["value"]]
    return ctx.unknown(f"`{text(node)}` is not an array the source describes")


def binary(node: ast.BinOp, ctx: Context, depth: int, _describe) -> dict | None:
    op = node.op
    left, right = _describe(node.left, ctx, depth), _describe(node.right, ctx, depth)
    if left is None or right is None:
        return None
    if left["kind"] not in ("scalar", "array") or right["kind"] not in ("scalar", "array"):
        return ctx.unknown(f"`{text(node)}`: arithmetic on something not a number or array")
    if isinstance(op, ast.MatMult):
        out = shapes.matmul(left, right) if left["kind"] == right["kind"] == "array" else None
        return out or ctx.unknown(f"`{text(node)}`: a matrix product of shapes that do not fit")
    if not isinstance(op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
        return ctx.unknown(f"`{text(node)}`: an operator synthesis does not follow")
    if left["kind"] == right["kind"] == "scalar":
        if isinstance(op, ast.Div):
            return scalar("float")
        if isinstance(op, ast.Pow) and "float" not in (left["type"], right["type"]):
            return ctx.unknown(f"`{text(node)}`: an int power's sign decides its type")
        kind = "float" if "float" in (left["type"], right["type"]) else "int"
        return scalar(kind)
    if left["kind"] == right["kind"] == "array":
        dtype = shapes.promote(left["framework"], left["dtype"], right["dtype"])
        if isinstance(op, (ast.Div, ast.Pow)) and dtype and not shapes.is_float(dtype):
            dtype = None
        out = shapes.broadcast(left, right, dtype) if dtype else None
        return out or ctx.unknown(f"`{text(node)}`: arrays whose shapes or dtypes do not combine plainly")
    arr, num = (left, right) if left["kind"] == "array" else (right, left)
    dtype = shapes.scalar_result(arr["framework"], arr["dtype"], num["type"], op)
    if dtype is None:
        return ctx.unknown(f"`{text(node)}`: an {arr['dtype']} array with a Python {num['type']} changes its dtype")
    return shapes.with_shape(arr, arr["shape"], arr.get("dims"), arr.get("items"), dtype)


def iteration(node: ast.expr, ctx: Context, depth: int, _describe=None) -> tuple[int | None, dict | None]:
    """What a `for` over `node` binds: (how many times, the element's description)."""
    if _describe is None:
        from .values import _describe
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
        numbers = list(desc["value"])
        return len(numbers), scalar(literal_kind(numbers) or "float", numbers[0] if len(set(numbers)) == 1 else None)
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
    return None, ctx.unknown(f"`{text(node)}`: an iteration whose elements differ or are not described")


def comprehension(node: ast.ListComp, ctx: Context, depth: int, _describe) -> dict | None:
    """`[f(c) for c in (0.3, 0.5)]`: as many items as the iterable, each the element's description."""
    if len(node.generators) != 1 or node.generators[0].ifs or not isinstance(node.generators[0].target, ast.Name):
        return ctx.unknown(f"`{text(node)}`: a comprehension with filters or several loops")
    gen = node.generators[0]
    assert isinstance(gen.target, ast.Name)  # (checked above)
    count, element = iteration(gen.iter, ctx, depth, _describe)
    if count is None or element is None:
        return ctx.unknown(f"`{text(node)}`: a comprehension over something whose length the source does not state")
    inner = Context({**ctx.env, gen.target.id: element}, ctx.call, ctx.why)
    item = _describe(node.elt, inner, depth)
    return {"kind": "sequence", "items": [item] * count} if item is not None else None
