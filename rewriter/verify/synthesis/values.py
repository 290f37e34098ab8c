"""What an argument expression is, read from source: a Python number or an array of known dtype and rank.

Only what the source states is believed: literal numbers and lists, and array constructors with
literal shapes and dtypes (`jnp.array([...])`, `jnp.zeros((3,))`, `jnp.float32(0.3)`,
`math.tensor([...], spatial('x'))`). A name is followed to its last plain assignment in the same
scope. Anything else is unknown (None): the caller says so instead of guessing.
"""
from __future__ import annotations

import ast

# The dtype a framework gives a list of Python numbers (jax without x64, PhiML's default precision).
DEFAULT = {"jax": {"float": "float32", "int": "int32", "bool": "bool"},
           "numpy": {"float": "float64", "int": "int64", "bool": "bool"},
           "phiml": {"float": "float32", "int": "int32", "bool": "bool"}}
DTYPES = {"float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"}
SCALAR_CONSTRUCTORS = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_"}
FILLED = {"zeros", "ones", "empty", "full"}
PHIML_DIMS = {"spatial", "channel", "batch", "instance", "dual"}


def scalar(kind: str, value=None) -> dict:
    return {"kind": "scalar", "type": kind, "value": value}


def array(framework: str, dtype: str, shape: list[int], value=None, dims: list[list[str]] | None = None) -> dict:
    """`dims`: PhiML dimension [name, type] per axis (a PhiML tensor), else None (a plain array)."""
    return {"kind": "array", "framework": framework, "dtype": dtype, "shape": list(shape), "value": value, "dims": dims}


def framework_of(module: str) -> str | None:
    top = module.split(".")[0]
    if module in ("jnp", "jax.numpy") or top == "jax":
        return "jax"
    if module in ("np", "numpy"):
        return "numpy"
    if module in ("math", "phiml.math", "phi.math") or top in ("phiml", "phi"):
        return "phiml"
    return None


def _literal_kind(values) -> str | None:
    kinds = {type(v) for v in values}
    if kinds <= {bool}:
        return "bool"
    if kinds <= {int, bool}:
        return "int"
    if kinds <= {int, float, bool}:
        return "float"
    return None


def _nested(node: ast.expr):
    """A literal nested list of numbers: (shape, flat values, value), or None."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, tuple):
        value = list(value)
    shape, flat, level = [], [], [value]
    while level and all(isinstance(v, (list, tuple)) for v in level):
        sizes = {len(v) for v in level}
        if len(sizes) != 1:
            return None
        shape.append(sizes.pop())
        level = [x for v in level for x in v]
    if not all(isinstance(v, (int, float, bool)) for v in level):
        return None
    flat = level
    return shape, flat, value


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def _dtype(node: ast.expr | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if node.value in DTYPES else None
    name = _dotted(node).rsplit(".", 1)[-1]
    if name in ("float", "int", "bool"):
        return None  # the framework's default for that kind: left to the caller
    return name if name in DTYPES else None


def _shape(node: ast.expr) -> list[int] | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,)
    if isinstance(value, (tuple, list)) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        return list(value)
    return None


def phiml_dims(node: ast.expr) -> tuple[list[list[str]], list[int | None]] | None:
    """`spatial('x')`, `spatial(x=3)`, `batch(b=2) & spatial('x, y')`: dims [name, type] with sizes (None: not given)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
        left, right = phiml_dims(node.left), phiml_dims(node.right)
        return (left[0] + right[0], left[1] + right[1]) if left and right else None
    if not (isinstance(node, ast.Call) and _dotted(node.func).rsplit(".", 1)[-1] in PHIML_DIMS):
        return None
    kind = _dotted(node.func).rsplit(".", 1)[-1]
    dims, sizes = [], []
    for arg in node.args:
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            return None
        for name in arg.value.replace(" ", "").split(","):
            if name:
                dims.append([name, kind])
                sizes.append(None)
    for kw in node.keywords:
        if kw.arg is None or not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, int)):
            return None
        dims.append([kw.arg, kind])
        sizes.append(kw.value.value)
    return dims, sizes


def describe(node: ast.expr, env: dict[str, ast.expr], depth: int = 0) -> dict | None:
    """The argument `node` as a value description, or None when the source does not say."""
    if depth > 8:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, complex):
        return scalar(_literal_kind([node.value]), node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = describe(node.operand, env, depth + 1)
        if inner and inner["kind"] == "scalar" and inner["value"] is not None:
            return {**inner, "value": -inner["value"]}
        return inner and {**inner, "value": None}
    if isinstance(node, ast.Name) and node.id in env:
        return describe(env[node.id], env, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        # an array and a Python number: the array's dtype and shape (weak types), unless an int array meets a float
        left, right = describe(node.left, env, depth + 1), describe(node.right, env, depth + 1)
        for a, b in ((left, right), (right, left)):
            if a and b and a["kind"] == "array" and b["kind"] == "scalar" and \
                    (b["type"] != "float" or a["dtype"].startswith(("float", "bfloat"))):
                return {**a, "value": None}
        return None
    if isinstance(node, ast.Call):
        return _call(node, env, depth)
    return None


def _call(node: ast.Call, env: dict[str, ast.expr], depth: int) -> dict | None:
    name = _dotted(node.func)
    if "." not in name:
        return None
    module, function = name.rsplit(".", 1)
    framework = framework_of(module)
    if framework is None:
        return None
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg}
    dtype_node = keywords.get("dtype")
    if framework in ("jax", "numpy"):
        if function in SCALAR_CONSTRUCTORS and len(node.args) == 1:
            value = describe(node.args[0], env, depth + 1)
            if value and value["kind"] == "scalar":
                dtype = "bool" if function == "bool_" else function
                return array(framework, dtype, [], value["value"])
            return None
        if function in ("array", "asarray") and node.args:
            nested = _nested(node.args[0])
            if nested is None:
                return None
            shape, flat, value = nested
            kind = _literal_kind(flat) or "float"
            dtype = _dtype(dtype_node) or (DEFAULT[framework][kind] if dtype_node is None else None)
            return array(framework, dtype, shape, value) if dtype else None
        if function in FILLED and node.args:
            shape = _shape(node.args[0])
            if shape is None:
                return None
            dtype_node = dtype_node if dtype_node is not None else (node.args[2] if function == "full" and len(node.args) > 2 else
                                                                     node.args[1] if function != "full" and len(node.args) > 1 else None)
            dtype = _dtype(dtype_node) if dtype_node is not None else DEFAULT[framework]["float"]
            return array(framework, dtype, shape) if dtype else None
        if function == "arange" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and \
                type(node.args[0].value) is int:
            return array(framework, _dtype(dtype_node) or DEFAULT[framework]["int"], [node.args[0].value])
        return None
    # PhiML
    if function in ("tensor", "wrap") and len(node.args) >= 2:
        nested = _nested(node.args[0])
        parts = [phiml_dims(a) for a in node.args[1:]]  # `batch('b'), spatial('s')`: one per axis group
        if nested is None or None in parts:
            return None
        dims = [d for part in parts for d in part[0]]
        if len(dims) != len(nested[0]):
            return None
        shape, flat, value = nested
        return array("phiml", DEFAULT["phiml"][_literal_kind(flat) or "float"], shape, value, dims)
    if function in ("zeros", "ones", "random_normal", "random_uniform") and node.args:
        dims = phiml_dims(node.args[0])
        if dims is None or None in dims[1]:
            return None
        return array("phiml", "float32", dims[1], None, dims[0])
    return None
