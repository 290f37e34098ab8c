"""The numerical comparison of results recorded as plain data (see `runtime.to_plain`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# float32 arithmetic reordered by a compiler (XLA fusion, oneDNN) differs in the last few ulps.
RTOL, ATOL = 1e-4, 1e-5


@dataclass(frozen=True)
class Comparison:
    """Whether two runs' values agree, how far apart they are, and what could not be compared."""
    equal: bool
    max_abs: float = 0.0
    max_rel: float = 0.0
    reason: str = ""
    uncomparable: str = ""  # why a part of the values cannot be compared (then `equal` is False)
    functions: tuple[str, ...] = ()  # where the values hold functions: compared through their calls
    data: bool = True  # something besides functions was compared


def compare(expected: Any, actual: Any, dtypes: bool = True) -> Comparison:
    """Structural equality, with arrays compared numerically (shape and dtype must match; `dtypes=False`
    for a reference computed another way, whose dtypes are its own).

    Functions (`{"__callable__"}`) match functions: what they return is compared where the program
    calls them (the recorder's "unit/returned" calls). A value recorded as `{"__opaque__"}` (a
    generator, an object whose only identity is its address) matches nothing: not comparable."""
    worst = [0.0, 0.0]
    functions: list[str] = []
    opaque: list[str] = []
    leaves = [0]

    def walk(a, b, where: str) -> str:
        if isinstance(a, dict) and ("__callable__" in a or "__opaque__" in a) or \
                isinstance(b, dict) and ("__callable__" in b or "__opaque__" in b):
            return special(a, b, where)
        if not (isinstance(a, dict) and ("__seq__" in a or "__dict__" in a)):  # containers hold the leaves
            leaves[0] += 1
        if isinstance(a, dict) and "__summary__" in a:  # a large array: sum, sum of |x|, min, max
            if not (isinstance(b, dict) and "__summary__" in b) or a["shape"] != b["shape"]:
                return f"{where}: expected an array of shape {a['shape']}, got {_describe(b)}"
            if dtypes and _dtypes_differ(a, b):
                return f"{where}: dtype {a['dtype']} != {b['dtype']}"
            x, y = np.asarray(a["__summary__"]), np.asarray(b["__summary__"])
            size = max(1, int(np.prod(a["shape"])))
            worst[0] = max(worst[0], float(np.abs(x - y).max()))  # of the statistics, not per element
            worst[1] = max(worst[1], float((np.abs(x - y) / np.maximum(np.abs(x), 1e-30)).max()))
            if not np.allclose(y, x, rtol=RTOL, atol=ATOL * size, equal_nan=True):  # sums accumulate rounding; NaN: both hold one
                return f"{where}: summary statistics differ (array too large to record in full)"
            return ""
        if isinstance(a, dict) and "__array__" in a:
            if not (isinstance(b, dict) and "__array__" in b):
                return f"{where}: expected an array, got {_describe(b)}"
            x, y = np.asarray(a["__array__"], dtype=float), np.asarray(b["__array__"], dtype=float)
            if x.shape != y.shape:
                return f"{where}: shape {list(x.shape)} != {list(y.shape)}"
            if dtypes and _dtypes_differ(a, b):
                return f"{where}: dtype {a['dtype']} != {b['dtype']}"
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

    def special(a, b, where: str) -> str:
        kinds = [("function" if "__callable__" in v else "opaque") if isinstance(v, dict) and
                 ("__callable__" in v or "__opaque__" in v) else "value" for v in (a, b)]
        if kinds == ["function", "function"]:
            functions.append(where)
            return ""
        if "opaque" in kinds:
            v = a if kinds[0] == "opaque" else b
            opaque.append(f"{where} is a {v['__opaque__']}: {v['why']}")
            return ""
        return f"{where}: expected {_describe(a)}, got {_describe(b)}"

    reason = walk(expected, actual, "result")
    if opaque and not reason:
        return Comparison(False, worst[0], worst[1], opaque[0], uncomparable=opaque[0], functions=tuple(functions),
                          data=bool(leaves[0]))
    return Comparison(not reason, worst[0], worst[1], reason, functions=tuple(functions), data=bool(leaves[0]))


def _dtypes_differ(a: dict, b: dict) -> bool:
    """Both recorded from arrays (a Python number has no dtype: jit turns it into a 0-d array of the
    backend's default type, which is jit's doing, not the rewrite's) and of different dtypes."""
    return "dtype" in a and "dtype" in b and a["dtype"] != b["dtype"]


def _describe(v: Any) -> str:
    if isinstance(v, dict) and "__callable__" in v:
        return f"a function ({v['__callable__']})"
    if isinstance(v, dict) and "__opaque__" in v:
        return f"a {v['__opaque__']}"
    return "an array" if isinstance(v, dict) and "__array__" in v else repr(v)[:60]
