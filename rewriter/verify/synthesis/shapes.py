"""How described arrays combine: broadcasting, dtype promotion, indexing, reshapes and stacking.

Each rule is what numpy, jax (without x64) and PhiML do, checked against them; a combination a
rule does not cover is unknown (None), never a nearest guess. PhiML shapes are matched by
dimension name and keep item names; numpy and jax shapes broadcast from the right.
"""
from __future__ import annotations

import ast

PHIML_ORDER = ["batch", "dual", "instance", "spatial", "channel"]
FLOAT = ("float", "bfloat")


def is_float(dtype: str) -> bool:
    return dtype.startswith(FLOAT)


def with_shape(desc: dict, shape: list[int], dims=None, items=None, dtype: str | None = None) -> dict:
    out = {**desc, "shape": list(shape), "value": None, "dtype": dtype or desc["dtype"]}
    out.pop("items", None)
    if desc["framework"] == "phiml":
        out["dims"] = [list(d) for d in dims]
        if items and any(items):
            out["items"] = list(items)
    return out


def items_of(desc: dict) -> list:
    return desc.get("items") or [None] * len(desc["shape"])


def promote(framework: str, a: str, b: str) -> str | None:
    """Two arrays' dtypes: equal, or an int/bool array with a float array (that float). Else unknown."""
    if a == b:
        return a
    kinds = {a: is_float(a), b: is_float(b)}
    if sum(kinds.values()) != 1:
        return None
    f, other = (a, b) if kinds[a] else (b, a)
    if framework in ("jax", "phiml"):
        return f
    return f if f == "float64" else None  # numpy: int64 with float32 gives float64


def scalar_result(framework: str, array_dtype: str, kind: str, op: ast.operator) -> str | None:
    """An array with a Python number: the array's dtype (a weak number), unless the kinds differ."""
    if is_float(array_dtype):
        return array_dtype
    if isinstance(op, ast.Div) or kind == "float":
        if framework == "phiml":
            return None  # PhiML promotes an int tensor with a Python float to float64: not assumed
        return "float32" if framework == "jax" else "float64"
    if array_dtype == "bool":
        return None
    if isinstance(op, ast.Pow):
        return None  # an int power's sign decides the result
    return array_dtype


def broadcast(a: dict, b: dict, dtype: str) -> dict | None:
    if a["framework"] != b["framework"]:
        return None
    if a["framework"] == "phiml":
        dims, shape, items = [list(d) for d in a["dims"]], list(a["shape"]), list(items_of(a))
        for d, n, it in zip(b["dims"], b["shape"], items_of(b)):
            if list(d) in dims:
                i = dims.index(list(d))
                if shape[i] != n or (it and items[i] and it != items[i]):
                    return None
                items[i] = items[i] or it
            elif d[0] in [x[0] for x in dims]:
                return None  # one name, two dimension types
            else:
                dims.append(list(d))
                shape.append(n)
                items.append(it)
        return with_shape(a, shape, dims, items, dtype)
    x, y = a["shape"][::-1], b["shape"][::-1]
    out = []
    for i in range(max(len(x), len(y))):
        m, n = (x[i] if i < len(x) else 1), (y[i] if i < len(y) else 1)
        if m != n and 1 not in (m, n):
            return None
        out.append(n if m == 1 else m)
    return with_shape(a, out[::-1], dtype=dtype)


def matmul(a: dict, b: dict) -> dict | None:
    if a["framework"] != b["framework"] or a["framework"] == "phiml" or a["dtype"] != b["dtype"]:
        return None
    x, y = a["shape"], b["shape"]
    if len(x) == 2 and len(y) == 2 and x[1] == y[0]:
        return with_shape(a, [x[0], y[1]])
    if len(x) == 2 and len(y) == 1 and x[1] == y[0]:
        return with_shape(a, [x[0]])
    if len(x) == 1 and len(y) == 2 and x[0] == y[0]:
        return with_shape(a, [y[1]])
    return None


def _int(node: ast.expr | None, scalar_of) -> int | None:
    """A literal int (or a described int with a known value), else None."""
    if node is None:
        return None
    d = scalar_of(node)
    return d["value"] if d and d["kind"] == "scalar" and d["type"] == "int" and d["value"] is not None else None


def _slice_length(s: ast.Slice, n: int, scalar_of) -> int | None:
    parts: list[int | None] = []
    for part in (s.lower, s.upper, s.step):
        if part is None:
            parts.append(None)
            continue
        v = _int(part, scalar_of)
        if v is None:
            return None
        parts.append(v)
    if parts[2] == 0:
        return None
    return len(range(*slice(*parts).indices(n)))


def index(desc: dict, node: ast.expr, scalar_of) -> dict | None:
    """numpy/jax basic indexing: ints drop an axis, slices keep it, None adds one; anything else: unknown."""
    if desc["framework"] == "phiml":
        return None
    elts = node.elts if isinstance(node, ast.Tuple) else [node]
    if sum(isinstance(e, ast.Constant) and e.value is Ellipsis for e in elts) > 1:
        return None
    used = sum(not (isinstance(e, ast.Constant) and e.value in (None, Ellipsis)) for e in elts)
    if used > len(desc["shape"]):
        return None
    shape, out = list(desc["shape"]), []
    for k, e in enumerate(elts):
        if isinstance(e, ast.Constant) and e.value is Ellipsis:
            after = sum(not (isinstance(x, ast.Constant) and x.value in (None, Ellipsis)) for x in elts[k + 1:])
            keep = len(shape) - after
            out += shape[:keep]
            shape = shape[keep:]
            continue
        if isinstance(e, ast.Constant) and e.value is None:
            out.append(1)
            continue
        n = shape.pop(0)
        if isinstance(e, ast.Slice):
            length = _slice_length(e, n, scalar_of)
            if length is None:
                return None
            out.append(length)
            continue
        d = scalar_of(e)
        if not (d and d["kind"] == "scalar" and d["type"] == "int"):
            return None
        if d["value"] is not None and not -n <= d["value"] < n:
            return None
    return with_shape(desc, out + shape)


def select(desc: dict, dim: str, node: ast.expr, scalar_of) -> dict | None:
    """PhiML `x.dim[i]`: an int or an item name drops the dimension, a slice keeps it, resized."""
    names = [d[0] for d in desc["dims"]]
    if desc["framework"] != "phiml" or dim not in names:
        return None
    i = names.index(dim)
    n, items = desc["shape"][i], items_of(desc)
    dims, shape, its = list(desc["dims"]), list(desc["shape"]), list(items)
    if isinstance(node, ast.Slice):
        length = _slice_length(node, n, scalar_of)
        if length is None or items[i]:
            return None
        shape[i] = length
        return with_shape(desc, shape, dims, its)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if not items[i] or node.value not in items[i]:
            return None
    else:
        d = scalar_of(node)
        if not (d and d["kind"] == "scalar" and d["type"] == "int") or (d["value"] is not None and not -n <= d["value"] < n):
            return None
    del dims[i], shape[i], its[i]
    return with_shape(desc, shape, dims, its)


def reshape(desc: dict, shape: list[int]) -> dict | None:
    if desc["framework"] == "phiml" or shape.count(-1) > 1 or any(n < -1 for n in shape):
        return None
    total = 1
    for n in desc["shape"]:
        total *= n
    known = 1
    for n in shape:
        known *= n if n != -1 else 1
    if -1 in shape:
        if known == 0 or total % known:
            return None
        shape = [total // known if n == -1 else n for n in shape]
    elif known != total:
        return None
    return with_shape(desc, shape)


def stack_numpy(items: list[dict], axis: int, concatenate: bool) -> dict | None:
    first = items[0]
    if any(d["framework"] != first["framework"] or d["dtype"] != first["dtype"] for d in items):
        return None
    rank = len(first["shape"])
    if concatenate:
        if rank == 0 or not -rank <= axis < rank:
            return None
        axis %= rank
        if any(len(d["shape"]) != rank or [n for i, n in enumerate(d["shape"]) if i != axis] !=
               [n for i, n in enumerate(first["shape"]) if i != axis] for d in items):
            return None
        shape = list(first["shape"])
        shape[axis] = sum(d["shape"][axis] for d in items)
        return with_shape(first, shape)
    if any(d["shape"] != first["shape"] for d in items) or not -(rank + 1) <= axis <= rank:
        return None
    axis %= rank + 1
    return with_shape(first, first["shape"][:axis] + [len(items)] + first["shape"][axis:])


def phiml_dtype(dtypes: set[str]) -> str | None:
    """PhiML's stack and concat cast floats to the default precision (float32)."""
    if len(dtypes) != 1:
        return None
    d = dtypes.pop()
    return "float32" if is_float(d) else d


def stack_phiml(items: list[dict], dim: list[str], size: int | None, names: list[str] | None) -> dict | None:
    first = items[0]
    if any(d["framework"] != "phiml" or d["dims"] != first["dims"] or d["shape"] != first["shape"] or
           items_of(d) != items_of(first) for d in items) or dim[0] in [d[0] for d in first["dims"]]:
        return None
    if (size is not None and size != len(items)) or (names is not None and len(names) != len(items)):
        return None
    dtype = phiml_dtype({d["dtype"] for d in items})
    if dtype is None:
        return None
    rank = PHIML_ORDER.index(dim[1])
    at = next((i for i, d in enumerate(first["dims"]) if PHIML_ORDER.index(d[1]) >= rank), len(first["dims"]))
    dims = first["dims"][:at] + [list(dim)] + first["dims"][at:]
    shape = first["shape"][:at] + [len(items)] + first["shape"][at:]
    its = items_of(first)[:at] + [names] + items_of(first)[at:]
    return with_shape(first, shape, dims, its, dtype)


def concat_phiml(items: list[dict], name: str) -> dict | None:
    first = items[0]
    names = [d[0] for d in first["dims"]]
    if name not in names or any(d["framework"] != "phiml" or d["dims"] != first["dims"] for d in items):
        return None
    i = names.index(name)
    if any(it[i] for d in items for it in [items_of(d)]):
        return None
    if any([n for j, n in enumerate(d["shape"]) if j != i] != [n for j, n in enumerate(first["shape"]) if j != i]
           for d in items):
        return None
    dtype = phiml_dtype({d["dtype"] for d in items})
    if dtype is None:
        return None
    shape = list(first["shape"])
    shape[i] = sum(d["shape"][i] for d in items)
    return with_shape(first, shape, first["dims"], items_of(first), dtype)
