"""Results as plain data (nested lists/dicts of numbers), and their numerical comparison."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# float32 arithmetic reordered by a compiler (XLA fusion, oneDNN) differs in the last few ulps.
RTOL, ATOL = 1e-4, 1e-5


def to_plain(value: Any) -> Any:
    """PhiML tensors, jax/torch/tf arrays, numpy, scalars and containers -> JSON-able data."""
    if isinstance(value, dict):
        return {"__dict__": {str(k): to_plain(v) for k, v in value.items()}}
    if isinstance(value, (tuple, list)):
        return {"__seq__": [to_plain(v) for v in value]}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float, complex, np.number)):
        return {"__array__": np.asarray(value).tolist(), "shape": []}
    array = _native_array(value)
    if array is not None:
        array = np.asarray(array)
        if array.dtype.kind == "c":
            array = np.stack([array.real, array.imag], -1)
        return {"__array__": array.tolist(), "shape": list(array.shape)}
    return {"__repr__": repr(value)}


def _native_array(value: Any):
    module = type(value).__module__
    if module.startswith("phiml"):
        from phiml import math

        if isinstance(value, math.Tensor):
            return value.numpy(value.shape.names) if value.shape.rank else value.numpy()
        if isinstance(value, math.Shape):
            return None
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # torch
        return value.detach().cpu().numpy()
    if hasattr(value, "numpy") and callable(value.numpy):  # tensorflow, jax
        return value.numpy()
    if hasattr(value, "__array__"):
        return np.asarray(value)
    return None


@dataclass(frozen=True)
class Comparison:
    equal: bool
    max_abs: float = 0.0
    max_rel: float = 0.0
    reason: str = ""


def compare(expected: Any, actual: Any) -> Comparison:
    """Structural equality, with arrays compared numerically (shape must match)."""
    worst = [0.0, 0.0]

    def walk(a, b, where: str) -> str:
        if isinstance(a, dict) and "__array__" in a:
            if not (isinstance(b, dict) and "__array__" in b):
                return f"{where}: expected an array, got {_describe(b)}"
            x, y = np.asarray(a["__array__"], dtype=float), np.asarray(b["__array__"], dtype=float)
            if x.shape != y.shape:
                return f"{where}: shape {list(x.shape)} != {list(y.shape)}"
            if x.size:
                diff = np.abs(x - y)
                finite = np.isfinite(x) & np.isfinite(y)
                if not np.array_equal(np.isnan(x), np.isnan(y)) or not np.array_equal(x[~finite & ~np.isnan(x)], y[~finite & ~np.isnan(y)]):
                    return f"{where}: non-finite values differ"
                d = diff[finite]
                if d.size:
                    worst[0] = max(worst[0], float(d.max()))
                    worst[1] = max(worst[1], float((d / np.maximum(np.abs(x[finite]), 1e-30)).max()))
                    if not np.allclose(y[finite], x[finite], rtol=RTOL, atol=ATOL):
                        return f"{where}: values differ"
            return ""
        if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
            for key in a:
                inner = a[key]
                if key in ("__seq__",):
                    if len(inner) != len(b[key]):
                        return f"{where}: length {len(inner)} != {len(b[key])}"
                    for i, (u, v) in enumerate(zip(inner, b[key])):
                        msg = walk(u, v, f"{where}[{i}]")
                        if msg:
                            return msg
                elif key == "__dict__":
                    if inner.keys() != b[key].keys():
                        return f"{where}: keys differ"
                    for k in inner:
                        msg = walk(inner[k], b[key][k], f"{where}[{k!r}]")
                        if msg:
                            return msg
                elif inner != b[key]:
                    return f"{where}: {inner!r} != {b[key]!r}"
            return ""
        return "" if a == b else f"{where}: {_describe(a)} != {_describe(b)}"

    reason = walk(expected, actual, "result")
    return Comparison(not reason, worst[0], worst[1], reason)


def _describe(v: Any) -> str:
    return "an array" if isinstance(v, dict) and "__array__" in v else repr(v)[:60]
