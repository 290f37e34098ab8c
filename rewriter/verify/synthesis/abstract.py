"""Abstract proof that a branch merge keeps shapes, dtypes and structure, at any described size.

Drawing builds every input; `jax.eval_shape` builds none, so a call site's `jnp.zeros((4096, 4096))`
costs no memory here. For each signature of the plan, at its sizes and at edge sizes (one more, 1,
0: the sizes drawing varies too), each branch path of the original (`branches`: traced conditions
forced) and the rewrite (jitted as the draws call it) are evaluated abstractly; PhiML code runs on
PhiML's jax backend, its tensors built from the abstract arrays inside the evaluated function.

- proven: on every signature, every path and the rewrite give one structure, shape and dtype, and
  at least one traced condition was forced;
- disproven: a path and the rewrite differ (said how, with the inputs), or the rewrite fails where
  every path succeeds;
- inconclusive: a path fails where another does not (the rewrite evaluates every branch: an error
  only one branch raises is no proof), too many paths, an input with no abstract value, the budget.
Inputs on which every path fails are outside the function's domain, as a draw the original rejects.
"""
from __future__ import annotations

import itertools
import time

from ... import runtime
from . import branches

PROVEN, DISPROVEN, INCONCLUSIVE = "proven", "disproven", "inconclusive"
SCALAR_VALUES: dict[str, list] = {"int": [1, 0, -1], "float": [1.0, 0.0, -1.0, 0.5], "bool": [True, False]}
MAX_SCALAR_COMBINATIONS = 6


class _Failed:
    def __init__(self, why: str):
        self.why = why


def describe(value):
    """The structure, shapes and dtypes of a result, as nested tuples (comparable, printable)."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(describe(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((repr(k), describe(v)) for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))))
    if type(value).__module__.startswith("phiml") and hasattr(value, "shape") and hasattr(getattr(value, "shape"), "names"):
        shape = value.shape
        dims = tuple(zip(shape.names, getattr(shape, "dim_types", [""] * len(shape.names)), shape.sizes))
        return ("tensor", tuple(sorted(dims, key=repr)), str(value.dtype), tuple(f"{n}={s}" for n, _, s in dims))
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return ("array", tuple(int(n) for n in value.shape), str(value.dtype))
    if isinstance(value, bool):
        return ("number", "bool")
    if isinstance(value, int):
        return ("number", "int")
    if isinstance(value, float):
        return ("number", "float")
    if value is None or isinstance(value, str):
        return ("value", repr(value))
    return ("object", type(value).__qualname__)


def show(d) -> str:
    kind = d[0]
    if kind == "array":
        return f"{d[2]}[{','.join(map(str, d[1]))}]"
    if kind == "tensor":
        return f"{d[2]}[{','.join(d[3])}]"
    if kind == "number":
        return f"a Python {d[1]}"
    if kind == "value":
        return d[1]
    if kind == "object":
        return f"a {d[1]}"
    if kind == "dict":
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in d[1]) + "}"
    inner = ", ".join(show(v) for v in d[1])
    return f"[{inner}]" if kind == "list" else f"({inner}{',' if len(d[1]) == 1 else ''})"


def _kind(dtype: str) -> str:
    return "bool" if dtype == "bool" else "int" if "int" in dtype else "float" if "float" in dtype else "other"


def _number_fits(number: str, other) -> bool:
    """A Python number has no dtype (jit makes it a 0-d array of the backend's default type): it agrees
    with a 0-d value it converts to without changing kind (a bool anywhere, an int into ints or floats)."""
    if other[0] == "number":
        return True
    if other[0] == "array" and other[1] == ():
        dtype = other[2]
    elif other[0] == "tensor" and other[1] == ():
        dtype = other[2]
    else:
        return False
    return number == "bool" or _kind(dtype) == number or number == "int" and _kind(dtype) == "float"


def agree(a, b) -> bool:
    if a[0] == "number" or b[0] == "number":
        number, other = (a, b) if a[0] == "number" else (b, a)
        return _number_fits(number[1], other)
    if a[0] != b[0]:
        return False
    if a[0] in ("list", "tuple"):
        return len(a[1]) == len(b[1]) and all(agree(x, y) for x, y in zip(a[1], b[1]))
    if a[0] == "dict":
        return [k for k, _ in a[1]] == [k for k, _ in b[1]] and all(agree(x, y) for (_, x), (_, y) in zip(a[1], b[1]))
    if a[0] == "tensor":
        return a[1:3] == b[1:3]
    return a == b


def _sizes(signature: dict) -> list[dict[str, int]]:
    """The signature's own sizes, then every axis one longer, of length 1, empty."""
    own: dict[str, int] = {}
    for desc in signature.values():
        if desc["kind"] == "array":
            for symbol, n in zip(desc["symbols"], desc["shape"]):
                own.setdefault(symbol, int(symbol[1:]) if symbol.startswith("#") else n)
    out = [own, {s: n + 1 for s, n in own.items()}, {s: 1 for s in own}, {s: 0 for s in own}]
    return [dict(x) for x in dict.fromkeys(tuple(sorted(o.items())) for o in out)] if own else [{}]


def _scalars(signature: dict) -> list[dict]:
    choices = []
    for p, desc in signature.items():
        if desc["kind"] == "scalar":
            value = desc.get("value")
            values = [value] if value is not None else SCALAR_VALUES[desc["type"]]
            choices.append([(p, v) for v in values])
    return [dict(c) for c in itertools.islice(itertools.product(*choices), MAX_SCALAR_COMBINATIONS)]


def _show_inputs(signature: dict, sizes: dict[str, int], scalars: dict) -> str:
    parts = []
    for p, desc in signature.items():
        if desc["kind"] == "scalar":
            parts.append(f"{p}={scalars[p]!r}")
            continue
        shape = [sizes[s] for s in desc["symbols"]]
        if desc.get("dims"):
            axes = ",".join(f"{name}={n}" for (name, _), n in zip(desc["dims"], shape))
        else:
            axes = ",".join(map(str, shape))
        parts.append(f"{p}={desc['dtype']}[{axes}]")
    return ", ".join(parts)


class Evaluator:
    """Calls a function abstractly on one signature at given sizes: its result's description, or _Failed."""

    def __init__(self, signature: dict, sizes: dict[str, int], scalars: dict):
        import jax

        self.jax = jax
        self.arrays = [(p, d) for p, d in signature.items() if d["kind"] == "array"]
        self.structs = [jax.ShapeDtypeStruct(tuple(sizes[s] for s in d["symbols"]), d["dtype"]) for _, d in self.arrays]
        self.scalars = scalars

    def __call__(self, function) -> object:
        record = {}

        def traced(*arrays):
            args = dict(self.scalars)
            for (p, desc), a in zip(self.arrays, arrays):
                args[p] = _tensor(a, desc) if desc["framework"] == "phiml" else a
            record["out"] = describe(function(**args))

        try:
            self.jax.eval_shape(traced, *self.structs)
        except Exception as e:
            return _Failed(runtime.describe(e))
        return record["out"]


def _tensor(native, desc: dict):
    from phiml import math

    return math.tensor(native, *(getattr(math, kind)(name) for name, kind in desc["dims"]), convert=False)


def _judge(inputs: str, results: list[tuple[tuple, object]], rewrite) -> tuple[str, str] | None:
    """(verdict, reason) for one set of inputs; None when they agree, or lie outside the domain."""
    failed = [(taken, r) for taken, r in results if isinstance(r, _Failed)]
    ok = [(taken, r) for taken, r in results if not isinstance(r, _Failed)]
    if not ok:
        return None  # every path fails: the original rejects these inputs
    if failed:
        taken, r = failed[0]
        return INCONCLUSIVE, f"{branches.label(taken)} fails abstractly at {inputs} ({r.why}): an error only one branch raises is no proof"
    if isinstance(rewrite, _Failed):
        return DISPROVEN, f"the rewrite fails at {inputs} where every branch succeeds: {rewrite.why}"
    differing = [(taken, r) for taken, r in ok if not agree(r, rewrite)]
    if not differing:
        return None
    shown = dict.fromkeys(f"{branches.label(taken)} gives {show(r)}" for taken, r in ok)
    return DISPROVEN, f"at {inputs}: {', '.join(shown)}; the rewrite gives {show(rewrite)}"


def prove(source: str, path: str, name: str, globals_: dict, rewritten, plan: dict, deadline: float,
          path_limit: int = 32) -> dict | None:
    """{"verdict", "reason"} for the function `name` of the module (`source`, `globals_`) and its jitted
    rewrite; None when the original has no `if` on a traced value (no merge to prove)."""
    try:
        forced = branches.forced(source, name, path, globals_)
    except branches.NotForcible as e:
        return {"verdict": INCONCLUSIVE, "reason": f"no abstract proof: {e}"}
    except SyntaxError:
        return None
    if not forced.lines:
        return None
    checked, traced, rejected = 0, False, ""
    for signature in plan["signatures"]:
        if any(d["kind"] == "array" and d["framework"] == "numpy" for d in signature.values()):
            return {"verdict": INCONCLUSIVE, "reason": "no abstract proof: a numpy argument is concrete by nature"}
        for sizes in _sizes(signature):
            for scalars in _scalars(signature):
                if time.monotonic() > deadline:
                    return {"verdict": INCONCLUSIVE, "reason": "no abstract proof: cut short by the time budget"}
                evaluate = Evaluator(signature, sizes, scalars)
                try:
                    results = branches.paths(lambda probe: evaluate(forced.make(probe)), limit=path_limit)
                except branches.TooManyPaths as e:
                    return {"verdict": INCONCLUSIVE, "reason": f"no abstract proof: {e}"}
                inputs = _show_inputs(signature, sizes, scalars)
                verdict = _judge(inputs, results, evaluate(rewritten))
                if verdict is not None:
                    return {"verdict": verdict[0], "reason": verdict[1]}
                if any(not isinstance(r, _Failed) for _, r in results):
                    checked += 1
                    traced = traced or any(taken for taken, _ in results)
                elif not rejected:
                    first = results[0][1]
                    rejected = f"at {inputs}: {first.why if isinstance(first, _Failed) else first}"
    if not checked:
        return {"verdict": INCONCLUSIVE, "reason": f"no abstract proof: the original fails abstractly on every path "
                                                   f"and input ({rejected})"}
    if not traced:
        return None  # every `if` is static at these inputs: the rewrite merges no branch of them
    return {"verdict": PROVEN, "reason": f"shapes agree on {checked} signature{'s' if checked != 1 else ''}"}
