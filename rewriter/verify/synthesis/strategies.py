"""Input source 4: Hypothesis strategies over the signatures of a plan.

Dtypes and ranks are the sources' (a rule's safety argument may rest on them: every call passes
floats); sizes and values vary. Each axis symbol draws one size per example, its own size first (so
shrinking returns to the shape the source gave), then the edges 1 and 0, then one more. Values
include 0, negatives and NaN. A search first keeps the sizes the calls give (`edges=False`: a
counterexample there is one the program could meet), then varies them. A draw is
(signature, {parameter: numpy array or Python number}).
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

EDGE_FLOATS = [0.0, -1.0, 1.0, 0.5, -0.5, math.nan]
NAMED_SIZES = [2, 1, 0, 3]  # an annotation's named axis (`"n"`): no size of its own


def sizes(symbol: str, edges: bool = True) -> list[int]:
    if symbol.startswith("="):  # a PhiML axis with item names: its size is theirs
        return [int(symbol[1:])]
    if symbol.startswith("#"):
        own = int(symbol[1:])
        return list(dict.fromkeys([own, 1, 0, own + 1])) if edges else [own]
    return NAMED_SIZES if edges else NAMED_SIZES[:1]


def numpy_dtype(name: str) -> np.dtype:
    return np.dtype("float32" if name == "bfloat16" else name)  # numpy has no bfloat16: drawn as float32, cast by the worker


def elements(dtype: np.dtype) -> st.SearchStrategy:
    if dtype.kind == "f":
        width = 8 * dtype.itemsize
        return st.one_of(st.sampled_from(EDGE_FLOATS), st.floats(-100, 100, width=width))
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "u":
        return st.integers(0, 20)
    return st.integers(-10, 10)


def scalar(desc: dict) -> st.SearchStrategy:
    seen = [desc["value"]] if desc.get("value") is not None else []
    if desc["type"] == "bool":
        return st.booleans()
    if desc["type"] == "int":
        return st.one_of(st.sampled_from(seen + [0, 1, -1]), st.integers(-10, 10))
    return st.one_of(st.sampled_from([float(v) for v in seen] + EDGE_FLOATS), st.floats(-100, 100))


def signature(sig: dict[str, dict], edges: bool = True) -> st.SearchStrategy:
    symbols = list(dict.fromkeys(s for d in sig.values() if d["kind"] == "array" for s in d["symbols"]))

    def values(drawn_sizes: dict[str, int]) -> st.SearchStrategy:
        parts = {}
        for p, d in sig.items():
            if d["kind"] == "scalar":
                parts[p] = scalar(d)
            else:
                dtype = numpy_dtype(d["dtype"])
                parts[p] = hnp.arrays(dtype, tuple(drawn_sizes[s] for s in d["symbols"]), elements=elements(dtype))
        return st.fixed_dictionaries(parts)

    drawn = st.fixed_dictionaries({s: st.sampled_from(sizes(s, edges)) for s in symbols})
    return drawn.flatmap(values).map(lambda raw: (sig, raw))


def inputs(signatures: list[dict[str, dict]], edges: bool = True) -> st.SearchStrategy:
    return st.one_of(*(signature(s, edges) for s in signatures))


def example(sig: dict[str, dict]) -> tuple[dict, dict]:
    """A call site whose arguments are all literal, as a draw."""
    raw = {}
    for p, d in sig.items():
        raw[p] = d["value"] if d["kind"] == "scalar" else np.asarray(d["value"], dtype=numpy_dtype(d["dtype"]))
    return sig, raw


def show(sig: dict[str, dict], raw: dict) -> str:
    """A draw for the report: `x=float32[2] [0. -1.]`."""
    parts = []
    for p, d in sig.items():
        v = raw[p]
        if d["kind"] == "scalar":
            parts.append(f"{p}={v!r}")
            continue
        text = np.array2string(np.asarray(v), threshold=8, precision=4, separator=", ").replace("\n", "")
        shape = ",".join(f"{n}={k}" for (n, _), k in zip(d["dims"], v.shape)) if d.get("dims") else ",".join(map(str, v.shape))
        parts.append(f"{p}={d['dtype']}[{shape}] {text}")
    return ", ".join(parts)
