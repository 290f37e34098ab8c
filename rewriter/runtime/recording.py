"""The Recorder: per unit, how often it was called with values, what it returned, what it was given
(and the random-generator states it started from)."""
from __future__ import annotations

import functools
import json
import os
import pickle
import sys
import weakref

from . import generators
from .state import state
from .values import NotConcrete, is_function, to_plain

MAX_VALUES = 20  # recorded return values per unit (all calls are counted)
MAX_INPUTS = 3  # recorded inputs per unit, for replay
RETURNED = "/returned"  # "m.py:make_step/returned": the calls of the functions `make_step` returns
MAX_RETURNED = 2  # a function returning a function returning a function: recorded two levels deep


def _leaked_modules() -> list[str]:
    """Modules loaded from the user's real tree instead of the copy (an editable install, a path
    hard-coded in the program): their results say nothing about the version under test."""
    real, workspace = state.config.get("real_root"), state.config.get("workspace")
    if not real:
        return []
    real = os.path.join(os.path.realpath(real), "")
    out = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path:
            path = os.path.realpath(path)
            # only files the mirror has a copy of: a virtual environment inside the project is not copied
            if path.startswith(real) and workspace and os.path.exists(os.path.join(workspace, "original", path[len(real):])):
                out.append(path)
    return sorted(out)


class Recorder:
    """Per unit: number of calls, the first return values (or exceptions), the first inputs."""

    def __init__(self, config: dict) -> None:
        self.config = config
        self.calls: dict[str, list] = {}
        self.counts: dict[str, int] = {}
        self.skipped_traced: dict[str, int] = {}
        self.context = ""  # the running pytest test, in test mode
        self.phiml_traces: dict[str, int] = {}
        self.phiml_cache: dict[str, int] = {}  # the most traces each jit function held at once
        self.jax_compiles: dict[str, int] = {}
        self.tf_traces: dict[str, int] = {}
        self.user_functions: set[str] = set()
        self.backend_requests: list[str] = []  # backends the program selected itself (overridden)
        # (unit, id of a returned function) -> its wrapper, which holds the function: the id stays its own
        self.returned_wrappers: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self.inputs_dir = os.path.join(config["out"], f"inputs-{os.getpid()}") if config.get("record_inputs") else None

    def wrap(self, unit: str, obj):
        """`obj` recorded under `unit`: functions keep their signature (PhiML inspects it)."""
        if hasattr(obj, "__phiml_rewrite_unit__") or not callable(obj) or isinstance(obj, type):
            return obj
        if (type(obj).__module__ or "").split(".")[0] in ("_pytest", "pytest"):
            return obj  # a fixture: pytest must still recognise it (its value: `record_result`)
        recorder = self

        if isinstance(obj, (staticmethod, classmethod)):
            return type(obj)(self.wrap(unit, obj.__func__))

        @functools.wraps(obj)
        def recorded(*args, **kwargs):
            return recorder.call(unit, obj, args, kwargs)

        recorded.__phiml_rewrite_unit__ = unit
        return recorded

    def call(self, unit: str, function, args, kwargs, origin: dict | None = None):
        """`origin`, for a returned function: the call that returned it ("parent" key and
        "parent_index") and how many times this very function was called before ("nth")."""
        key = f"{self.context}::{unit}" if self.context else unit
        if _tracing() or _has_tracer(args, kwargs):
            self.skipped_traced[key] = self.skipped_traced.get(key, 0) + 1
            return self._returned(unit, function(*args, **kwargs), key, None)
        index = self.counts.get(key, 0)
        self.counts[key] = index + 1
        inputs = self._save_inputs(key, index, args, kwargs)
        try:
            result = function(*args, **kwargs)
        except BaseException as e:
            if index < MAX_VALUES:
                self.calls.setdefault(key, []).append({"index": index, "error": describe(e), "inputs": inputs,
                                                       **({"origin": origin} if origin else {})})
            raise
        if index < MAX_VALUES:
            entry = {"index": index, "inputs": inputs, **({"origin": origin} if origin else {})}
            try:
                entry["value"] = to_plain(result)
            except NotConcrete as e:
                entry["not_concrete"] = str(e)
            except Exception as e:  # an unusual return type must not break the user's program
                entry["unrecordable"] = describe(e)
            self.calls.setdefault(key, []).append(entry)
        return self._returned(unit, result, key, index)

    def record_result(self, filename: str, qualname: str, context: str, value=None, error: BaseException | None = None) -> None:
        """A result produced outside a recorded call (a pytest fixture's value, which pytest makes by
        calling the function itself): recorded as a call of the unit `qualname` in `filename`, if that
        is a unit being recorded."""
        real = os.path.realpath(filename)
        target = next((t for p, t in self.config.get("instrument", {}).items() if os.path.realpath(p) == real), None)
        if target is None or qualname not in target["units"]:
            return
        key = f"{context}::{target['id']}:{qualname}" if context else f"{target['id']}:{qualname}"
        index = self.counts.get(key, 0)
        self.counts[key] = index + 1
        if index >= MAX_VALUES:
            return
        entry: dict = {"index": index, "inputs": None}
        if error is not None:
            entry["error"] = describe(error)
        else:
            try:
                entry["value"] = to_plain(value)
            except NotConcrete as e:
                entry["not_concrete"] = str(e)
            except Exception as e:
                entry["unrecordable"] = describe(e)
        self.calls.setdefault(key, []).append(entry)

    def _returned(self, unit: str, result, key: str, index: int | None):
        """A returned function (alone or in a tuple) recorded as "unit/returned" ("unit/returned[i]"):
        a new closure per call has no value to compare, what it returns when the program calls it has.
        `index`: of the call that returned it (None: a call while being traced)."""
        if unit.count(RETURNED) >= MAX_RETURNED:
            return result
        if is_function(result):
            return self.wrap_returned(unit + RETURNED, result, key, index)
        if type(result) is tuple and any(is_function(v) for v in result):
            return tuple(self.wrap_returned(f"{unit}{RETURNED}[{i}]", v, key, index) if is_function(v) else v
                         for i, v in enumerate(result))
        return result

    def wrap_returned(self, unit: str, function, parent: str, parent_index: int | None):
        """Plain functions get a function wrapper (as units do); jit-compiled ones a proxy that keeps
        their attributes (`.lower`, `.traces`). One wrapper per function object while it lives."""
        if hasattr(function, "__phiml_rewrite_unit__"):  # a recorded unit: its calls are recorded already
            return function
        known = self.returned_wrappers.get((unit, id(function)))
        if known is not None:  # the same function returned again (a cache): the same wrapper, `is` holds
            return known
        wrapper = self._wrapper(unit, function, parent, parent_index)
        try:
            self.returned_wrappers[(unit, id(function))] = wrapper
        except TypeError:  # no weak references to it: a new wrapper next time
            pass
        return wrapper

    def _wrapper(self, unit: str, function, parent: str, parent_index: int | None):
        import types

        recorder, calls = self, [0]

        def record(args, kwargs):
            origin = {"parent": parent, "parent_index": parent_index, "nth": calls[0]}
            calls[0] += 1
            return recorder.call(unit, function, args, kwargs, origin)

        if not isinstance(function, types.FunctionType):
            return _ReturnedFunction(unit, function, record)

        @functools.wraps(function)
        def recorded(*args, **kwargs):
            return record(args, kwargs)

        recorded.__phiml_rewrite_unit__ = unit
        return recorded

    def _save_inputs(self, key: str, index: int, args, kwargs) -> str | None:
        """The arguments, then the random-generator states (read last: the call starts from them)."""
        if self.inputs_dir is None or index >= MAX_INPUTS:
            return None
        os.makedirs(self.inputs_dir, exist_ok=True)
        path = os.path.join(self.inputs_dir, f"{len(os.listdir(self.inputs_dir))}.pkl")
        try:
            with open(path, "wb") as f:
                pickle.dump((args, kwargs), f)
                pickle.dump(generators.capture(), f)
        except Exception as e:
            if os.path.exists(path):
                os.unlink(path)
            return f"!{describe(e)}"
        return path

    def dump(self) -> None:
        data = {
            "pid": os.getpid(), "argv": sys.argv, "calls": self.calls, "counts": self.counts,
            "skipped_traced": self.skipped_traced, "phiml_traces": self.phiml_traces,
            "jax_compiles": self.jax_compiles, "tf_traces": self.tf_traces, "leaked": _leaked_modules(),
            "backend_requests": sorted(set(self.backend_requests)),
        }
        path = os.path.join(self.config["out"], f"records-{os.getpid()}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(data, f)
        os.replace(path + ".tmp", path)


class _ReturnedFunction:
    """A returned jit-compiled function (or partial, bound method), recorded when called; every
    attribute is the function's own."""

    def __init__(self, unit: str, function, record) -> None:
        self.__dict__.update(_record=record, __phiml_rewrite_unit__=unit, __wrapped__=function)

    def __call__(self, *args, **kwargs):
        return self._record(args, kwargs)

    def __get__(self, instance, owner=None):  # read from an instance: a method where the function would be one
        import types

        wrapped = self.__dict__["__wrapped__"]
        getter = getattr(type(wrapped), "__get__", None)
        if instance is None or getter is None or getter(wrapped, instance, owner) is wrapped:
            return self
        return types.MethodType(self, instance)

    def __getattr__(self, name):
        return getattr(self.__dict__["__wrapped__"], name)

    def __repr__(self) -> str:
        return repr(self.__wrapped__)


def describe(e: BaseException) -> str:
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {text}"[:500]


def _has_tracer(args, kwargs) -> bool:
    """A call from inside jax tracing (`lax.scan`, a jitted caller) gets tracers, not values."""
    jax = sys.modules.get("jax")
    if jax is None or not hasattr(jax, "tree_util"):
        return False
    tracer = jax.core.Tracer
    try:
        return any(isinstance(leaf, tracer) for leaf in jax.tree_util.tree_leaves((args, kwargs)))
    except Exception:
        return False


def _tracing() -> bool:
    """Inside a jit trace the values are symbolic: they are neither comparable nor the call's result."""
    functional = sys.modules.get("phiml.math._functional")
    if functional is not None and (getattr(functional, "_TRACING_JIT", None) or getattr(functional, "_TRACING_LINEAR", None)):
        return True
    torch = sys.modules.get("torch")
    if torch is not None and getattr(torch, "jit", None) is not None and torch.jit.is_tracing():
        return True
    tf = sys.modules.get("tensorflow")
    if tf is not None and hasattr(tf, "executing_eagerly") and not tf.executing_eagerly():
        return True
    return False
