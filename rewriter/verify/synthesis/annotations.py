"""Input source 3: parameter annotations: `float`, `int`, `bool`, and jaxtyping's `Float[Array, "n m"]`.

A jaxtyping dimension named in several annotations has one size per call (`"n"` in `x` and `y`);
a number is that size; `...`, `*batch` and `_` cannot be drawn without guessing a rank: unknown.
"""
from __future__ import annotations

import ast

from .values import array, scalar

KINDS = {"Float": "float32", "Float32": "float32", "Float16": "float16", "Float64": "float64",
         "Int": "int32", "Int32": "int32", "Int64": "int64", "Int8": "int8", "UInt8": "uint8",
         "Bool": "bool", "Shaped": "float32", "Real": "float32", "Inexact": "float32", "Integer": "int32"}
ARRAYS = {"Array", "ndarray", "ArrayLike"}


def describe(annotation: ast.expr | None) -> dict | None:
    if annotation is None:
        return None
    if isinstance(annotation, ast.Name) and annotation.id in ("float", "int", "bool"):
        return scalar(annotation.id)
    if isinstance(annotation, ast.Subscript):
        head = annotation.value
        kind = head.id if isinstance(head, ast.Name) else head.attr if isinstance(head, ast.Attribute) else ""
        index = annotation.slice
        if kind not in KINDS or not (isinstance(index, ast.Tuple) and len(index.elts) == 2):
            return None
        container, dims = index.elts
        container_name = container.id if isinstance(container, ast.Name) else container.attr if isinstance(container, ast.Attribute) else ""
        if container_name not in ARRAYS or not (isinstance(dims, ast.Constant) and isinstance(dims.value, str)):
            return None
        framework = "numpy" if container_name == "ndarray" and isinstance(container, ast.Attribute) and \
            isinstance(container.value, ast.Name) and container.value.id in ("np", "numpy") else "jax"
        symbols = []
        for dim in dims.value.split():
            if dim.isdigit():
                symbols.append(int(dim))
            elif dim.isidentifier() and dim != "_":
                symbols.append(dim)
            else:
                return None
        dtype = KINDS[kind] if framework == "jax" or not KINDS[kind].endswith("32") else KINDS[kind].replace("32", "64")
        described = array(framework, dtype, [s if isinstance(s, int) else 2 for s in symbols])
        described["symbols"] = [s if isinstance(s, str) else None for s in symbols]
        return described
    return None
