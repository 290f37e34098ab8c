"""Calls that make an array the source describes: numpy, jax and PhiML constructors with literal
shapes and dtypes, their random draws, `*_like`, stacking, reshapes and elementwise functions.

Dtypes are the frameworks' (checked against them): numpy float64 and int64, jax float32 and
int32 (no x64), PhiML float32 (its default precision; `stack`/`concat` cast floats to it) and
int64 for Python ints. A call whose dtype or shape rests on anything else is unknown.
"""
from __future__ import annotations

import ast

from . import shapes
from .values import DEFAULT, Context, array, dotted, dtype_name, framework_of, literal, literal_kind, nested, \
    phiml_dims, scalar, shape_of

SCALAR_CONSTRUCTORS = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_"}
FILLED = {"zeros", "ones", "empty", "full"}
LIKE = {"zeros_like", "ones_like", "empty_like", "full_like"}
ELEMENTWISE = {"exp", "sin", "cos", "tan", "tanh", "sqrt", "log", "abs", "sign", "square", "negative", "sinh", "cosh",
               "arctan", "log1p", "expm1", "sigmoid"}
KEEPS_INT = {"abs", "sign", "square", "negative"}
GRIDS = {"CenteredGrid", "StaggeredGrid", "PointCloud", "Field"}


def call(node: ast.Call, ctx: Context, depth: int, describe) -> dict | None:
    name = dotted(node.func)
    if isinstance(node.func, ast.Attribute) and not framework_of(name.rsplit(".", 1)[0] if "." in name else ""):
        base = describe(node.func.value, Context(ctx.env, ctx.call), depth)
        if base is not None and base["kind"] == "array":
            return _method(base, node, ctx, depth, describe)
    if name.rsplit(".", 1)[-1] in GRIDS:
        return ctx.unknown(f"`{name}(...)`: a PhiFlow field; synthesis draws tensors and arrays only")
    if "." not in name:
        return ctx.unknown(f"`{ast.unparse(node.func)}(...)` is not a constructor synthesis knows")
    module, function = name.rsplit(".", 1)
    framework = framework_of(module)
    if framework is None:
        return ctx.unknown(f"`{name}(...)` is not a numpy, jax or PhiML call")
    args = [describe(a, ctx, depth) if not isinstance(a, ast.Starred) else None for a in node.args]
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg}
    if len(keywords) != len(node.keywords):
        return ctx.unknown(f"`{name}(**...)`: keyword arguments the source does not spell out")
    if module.rsplit(".", 1)[-1] == "random":
        out = _random(framework, function, node, args, keywords, ctx, depth, describe)
    elif framework == "phiml":
        out = _phiml(function, node, args, keywords, ctx, depth, describe)
    else:
        out = _numpy(framework, function, node, args, keywords, ctx, depth, describe)
    return out or ctx.unknown(f"`{name}(...)`: arguments whose shapes or dtypes the source does not state")


def _dtype(framework: str, node: ast.expr | None, kind: str = "float") -> str | None:
    """A dtype keyword: absent -> the framework's default; `float`/`int`/`bool` -> its default of that kind."""
    if node is None:
        return DEFAULT[framework][kind]
    name = dotted(node).rsplit(".", 1)[-1]
    if name in ("float", "int", "bool") and isinstance(node, ast.Name):
        return {"jax": {"float": "float32", "int": "int32", "bool": "bool"}, "numpy": DEFAULT["numpy"],
                "phiml": {"float": "float32", "int": "int32", "bool": "bool"}}[framework][name]
    return dtype_name(node)


def _elementwise(framework: str, function: str, args: list) -> dict | None:
    if len(args) != 1 or not args[0] or args[0]["kind"] != "array" or args[0]["framework"] != framework:
        return None
    x = args[0]
    if shapes.is_float(x["dtype"]) or (function in KEEPS_INT and x["dtype"] != "bool"):
        return shapes.with_shape(x, x["shape"], x.get("dims"), x.get("items"))
    return None


def _like(function: str, args: list, keywords: dict) -> dict | None:
    if not args or not args[0] or args[0]["kind"] != "array" or "dtype" in keywords or "shape" in keywords:
        return None
    x = args[0]
    if function == "full_like" and len(args) > 2:
        return None
    return shapes.with_shape(x, x["shape"], x.get("dims"), x.get("items"))


def _sequence(desc: dict | None) -> list[dict] | None:
    if desc and desc["kind"] == "sequence" and desc["items"] and all(d["kind"] == "array" for d in desc["items"]):
        return desc["items"]
    return None


def _data(node: ast.expr, desc: dict | None):
    """Literal data: written at the call, or a name bound to a literal (a loop over literal rows)."""
    value = literal(node)
    if value is None and desc is not None and desc["kind"] == "literal":
        value = desc["value"]
    return value


def _int_value(desc: dict | None) -> int | None:
    return desc["value"] if desc and desc["kind"] == "scalar" and desc["type"] == "int" and \
        isinstance(desc["value"], int) else None


def _numpy(framework, function, node, args, keywords, ctx, depth, describe) -> dict | None:
    dtype_node = keywords.get("dtype")
    if function in SCALAR_CONSTRUCTORS and len(args) == 1:
        if args[0] and args[0]["kind"] == "scalar":
            return array(framework, "bool" if function == "bool_" else function, [], args[0]["value"])
        return None
    if function in ("array", "asarray") and node.args:
        value = _data(node.args[0], args[0])
        found = nested(value) if value is not None else None
        if found is None:
            return None
        shape, flat, value = found
        kind = literal_kind(flat) or "float"
        dtype = dtype_name(dtype_node) or (DEFAULT[framework][kind] if dtype_node is None else None)
        return array(framework, dtype, shape, value) if dtype else None
    if function in FILLED and args:
        shape = shape_of(args[0])
        if shape is None:
            return None
        position = 2 if function == "full" else 1
        if dtype_node is None and len(node.args) > position:
            dtype_node = node.args[position]
        if function == "full" and dtype_node is None:
            fill = args[1] if len(args) > 1 else None
            if not fill or fill["kind"] != "scalar":
                return None
            return array(framework, DEFAULT[framework][fill["type"]], shape)
        dtype = _dtype(framework, dtype_node)
        return array(framework, dtype, shape) if dtype else None
    if function == "arange" and len(args) == 1 and _int_value(args[0]) is not None and args[0]["value"] >= 0:
        dtype = _dtype(framework, dtype_node, "int")
        return array(framework, dtype, [args[0]["value"]]) if dtype else None
    if function == "linspace" and len(args) >= 2 and all(a and a["kind"] == "scalar" for a in args[:2]):
        num = args[2] if len(args) > 2 else describe(keywords["num"], ctx, depth) if "num" in keywords else scalar("int", 50)
        n = _int_value(num)
        dtype = _dtype(framework, dtype_node)
        return array(framework, dtype, [n]) if n is not None and n >= 0 and dtype and len(args) <= 3 else None
    if function in ("eye", "identity") and args and _int_value(args[0]) is not None:
        m = _int_value(args[1]) if function == "eye" and len(args) > 1 else args[0]["value"]
        dtype = _dtype(framework, dtype_node)
        return array(framework, dtype, [args[0]["value"], m]) if m is not None and dtype else None
    if function in LIKE:
        return _like(function, args, keywords)
    if function in ELEMENTWISE:
        return _elementwise(framework, function, args)
    if function in ("stack", "concatenate") and args:
        items = _sequence(args[0])
        axis = _int_value(args[1] if len(args) > 1 else describe(keywords["axis"], ctx, depth) if "axis" in keywords
                          else scalar("int", 0))
        if items is None or axis is None or any(d["framework"] != framework for d in items):
            return None
        return shapes.stack_numpy(items, axis, function == "concatenate")
    if function == "reshape" and len(args) >= 2 and args[0] and args[0]["kind"] == "array":
        shape = shape_of(args[1])
        return shapes.reshape(args[0], shape) if shape is not None and args[0]["framework"] == framework else None
    if function == "transpose" and len(args) == 1 and args[0] and args[0]["kind"] == "array" and not keywords:
        return shapes.with_shape(args[0], args[0]["shape"][::-1])
    return None


def _random(framework, function, node, args, keywords, ctx, depth, describe) -> dict | None:
    if framework == "jax":
        # jax.random.normal(key, shape=(), dtype=float32): the key only seeds the draw
        if function not in ("normal", "uniform", "truncated_normal") or not node.args:
            return None
        if function == "truncated_normal":
            return None
        shape_node = node.args[1] if len(node.args) > 1 else keywords.get("shape")
        shape = [] if shape_node is None else shape_of(describe(shape_node, ctx, depth))
        dtype = _dtype("jax", keywords.get("dtype") or (node.args[2] if len(node.args) > 2 else None))
        return array("jax", dtype, shape) if shape is not None and dtype and shapes.is_float(dtype) else None
    if framework == "numpy":
        if function in ("rand", "randn"):
            sizes = [_int_value(a) for a in args]
            known = [s for s in sizes if s is not None]
            return array("numpy", "float64", known) if len(known) == len(sizes) and sizes and not keywords else None
        size_at = {"random": 0, "random_sample": 0, "normal": 2, "uniform": 2}.get(function)
        if size_at is None:
            return None
        size = node.args[size_at] if len(node.args) > size_at else keywords.get("size")
        shape = shape_of(describe(size, ctx, depth)) if size is not None else None
        return array("numpy", "float64", shape) if shape is not None else None
    return None


def _phiml_shape(nodes: list[ast.expr]):
    dims: list[list[str]] = []
    sizes: list[int | None] = []
    items: list[list[str] | None] = []
    for n in nodes:
        part = phiml_dims(n)
        if part is None:
            return None
        dims, sizes, items = dims + part[0], sizes + part[1], items + part[2]
    return dims, sizes, items


def _phiml(function, node, args, keywords, ctx, depth, describe) -> dict | None:
    if function in ("tensor", "wrap") and len(node.args) >= 2 and not keywords:
        shape = _phiml_shape(node.args[1:])  # `batch('b'), spatial('s')`: one per axis group
        if shape is None:
            return None
        dims, sizes, items = shape
        value = _data(node.args[0], args[0])
        found = nested(value) if value is not None else None
        if found is not None:
            data_shape, flat, value = found
            dtype = DEFAULT["phiml"][literal_kind(flat) or "float"]
        elif args[0] and args[0]["kind"] == "array" and args[0]["framework"] == "numpy":
            data_shape, value, dtype = args[0]["shape"], args[0]["value"], args[0]["dtype"]  # the numpy dtype is kept
        else:
            return None
        if len(dims) != len(data_shape) or any(s is not None and s != n for s, n in zip(sizes, data_shape)):
            return None
        return array("phiml", dtype, data_shape, value, dims, items)
    if function in ("zeros", "ones", "random_normal", "random_uniform") and node.args:
        shape = _phiml_shape(node.args)
        if shape is None or None in shape[1] or set(keywords) - {"dtype", "low", "high"}:
            return None
        filled: str | None
        if function in ("zeros", "ones"):
            filled = _dtype("phiml", keywords.get("dtype")) if keywords.get("dtype") is not None else "float32"
        else:
            filled = "float32" if "dtype" not in keywords else None
        return array("phiml", filled, shape[1], None, shape[0], shape[2]) if filled else None
    if function == "linspace" and len(node.args) == 3 and all(a and a["kind"] == "scalar" for a in args[:2]):
        shape = _phiml_shape(node.args[2:])
        if shape is None or len(shape[0]) != 1 or None in shape[1]:
            return None
        return array("phiml", "float32", shape[1], None, shape[0], shape[2])
    if function in ("stack", "concat") and len(node.args) == 2 and not keywords:
        values = args[0]
        if isinstance(node.args[0], ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                                      for k in node.args[0].keys):
            descs = [describe(v, ctx, depth) for v in node.args[0].values]
            names = [str(k.value) for k in node.args[0].keys if isinstance(k, ast.Constant)]
            items = descs if None not in descs and all(d["kind"] == "array" for d in descs) else None
        else:
            items, names = _sequence(values), None
        if items is None:
            return None
        dim_node = node.args[1]
        if function == "concat":
            name = dim_node.value if isinstance(dim_node, ast.Constant) and isinstance(dim_node.value, str) else None
            if name is None:
                shape = phiml_dims(dim_node)
                name = shape[0][0][0] if shape and len(shape[0]) == 1 and shape[1][0] is None else None
            return shapes.concat_phiml(items, name) if name else None
        shape = phiml_dims(dim_node)
        if shape is None or len(shape[0]) != 1:
            return None
        given = shape[2][0]
        if names is not None and given is not None:
            return None
        return shapes.stack_phiml(items, shape[0][0], shape[1][0], names or given)
    if function in LIKE - {"full_like"}:
        return _like(function, args, keywords)
    if function in ELEMENTWISE - {"square", "negative", "sinh", "cosh", "arctan", "expm1"}:
        return _elementwise("phiml", function, args)
    return None


def _method(base: dict, node: ast.Call, ctx: Context, depth: int, describe) -> dict | None:
    assert isinstance(node.func, ast.Attribute)  # (a method call)
    method = node.func.attr
    if base["framework"] == "phiml":
        return ctx.unknown(f"`.{method}(...)` of a PhiML tensor: not followed")
    if method == "reshape" and node.args and not node.keywords:
        if len(node.args) == 1:
            shape = shape_of(describe(node.args[0], ctx, depth))
        else:
            values = [describe(a, ctx, depth) for a in node.args]
            shape = [v["value"] for v in values] if all(_int_value(v) is not None for v in values) else None
        out = shapes.reshape(base, shape) if shape is not None else None
        return out or ctx.unknown("`.reshape(...)` to a shape the source does not state or that does not fit")
    if method == "astype" and len(node.args) == 1:
        dtype = _dtype(base["framework"], node.args[0])
        return shapes.with_shape(base, base["shape"], dtype=dtype) if dtype else None
    if method == "transpose" and not node.args:
        return shapes.with_shape(base, base["shape"][::-1])
    return ctx.unknown(f"`.{method}(...)`: a method whose result synthesis does not follow")
