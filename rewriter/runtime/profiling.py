"""Trace profiling inside a program run by `phiml-rewrite profile`: who traces, how often, and why.

Per traced function of the program (keyed by where it is defined, so that a jit function created
anew on every call still adds up under its def) this records calls, traces, the reason of each
re-trace, the time spent in calls that traced, the call sites, and the largest trace cache seen.

- PhiML (`jit_compile`, `jit_compile_linear`, `custom_gradient`): the key of each trace is compared
  with the previous one of the same def, argument by argument, in the terms PhiML keys on
  (auxiliary values, non-tensor values, tensor shapes, argument names, backend). A run of the Python
  body without a new PhiML key is a re-trace by the backend underneath (a dtype change on jax and
  tensorflow, a Python number on tensorflow): PhiML cannot see it, this can.
- raw jax: jax's own cache-miss explanations (`jax_explain_cache_misses`), one per trace.
- raw tensorflow: each `tf.function` trace, with the input signature that differs from the last one.
Only functions defined in the program's own files count (not PhiML's or jax's internals).
"""
from __future__ import annotations

import functools
import json
import logging
import os
import sys
import sysconfig
import time
import types
import weakref

from .state import state

MAX_TEXTS = 8  # distinct reason texts kept per function (all are counted by category)
MAX_KEYS = 64  # previous keys remembered per def, to tell keys that come back from new ones


def _library_dirs() -> tuple[str, ...]:
    paths = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(os.path.join(os.path.realpath(p), "") for p in paths)


class Profile:
    """Everything recorded in this process; `dump` writes it as JSON for the driver to merge."""

    def __init__(self, config: dict) -> None:
        self.config = config
        self.root = os.path.join(os.path.realpath(config.get("root") or os.getcwd()), "")
        self.libraries = _library_dirs() + (os.path.join(os.path.dirname(os.path.realpath(__file__)), ""),)
        self.functions: dict[str, dict] = {}
        self._user_files: dict[str, bool] = {}
        self.phiml_imported = False
        self.backend = config.get("backend")

    def is_user_file(self, path: str) -> bool:
        """The program's own source: a real file outside the interpreter's libraries (anywhere, not
        only under the current directory: `python ../scripts/train.py` is the program too)."""
        known = self._user_files.get(path)
        if known is None and path in state.cell_files:  # a notebook's cell, in a kernel
            known = self._user_files[path] = True
        if known is None:
            real = os.path.realpath(path)
            known = self._user_files[path] = (os.path.isfile(real) and not real.startswith(self.libraries)
                                              and "site-packages" not in real and "dist-packages" not in real)
        return known

    def relative(self, path: str) -> str:
        """A path as the report shows it: relative to where the profile started, when inside it."""
        if path in state.cell_files:
            return state.cell_files[path]
        real = os.path.realpath(path)
        return os.path.relpath(real, self.root) if real.startswith(self.root) else real

    def record(self, kind: str, function) -> dict | None:
        """The record of a program function (None for library code), created on first use."""
        code = getattr(function, "__code__", None)
        if code is None or not self.is_user_file(code.co_filename):
            return None
        return self.record_at(kind, function.__name__, code.co_filename, code.co_firstlineno)

    def record_at(self, kind: str, name: str, path: str, line: int) -> dict:
        key = f"{kind}:{os.path.realpath(path)}:{line}:{name}"
        if key not in self.functions:
            self.functions[key] = {
                "kind": kind, "name": name, "file": self.relative(path), "line": line,
                "calls": 0, "traces": 0, "hidden_traces": 0, "nested_traces": 0, "instances": 0,
                "trace_seconds": 0.0, "call_seconds": 0.0, "max_cache": 0, "forget_traces": False,
                "returned_keys": 0, "older_key_hits": 0, "reasons": {}, "texts": {}, "call_sites": {},
                "trace_sites": {},
            }
        return self.functions[key]

    def dump(self) -> None:
        out = self.config.get("out")
        if not out:
            return
        data = {"pid": os.getpid(), "argv": sys.argv, "backend": self.backend, "phiml_imported": self.phiml_imported,
                "functions": list(self.functions.values())}
        path = os.path.join(out, f"profile-{os.getpid()}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(data, f, default=str)
        os.replace(path + ".tmp", path)


def add_reason(record: dict, category: str, text: str) -> None:
    record["reasons"][category] = record["reasons"].get(category, 0) + 1
    if text in record["texts"] or len(record["texts"]) < MAX_TEXTS:
        record["texts"][text] = record["texts"].get(text, 0) + 1


def _count(counter: dict, key: str) -> None:
    counter[key] = counter.get(key, 0) + 1


def call_site(profile: Profile) -> str:
    """The innermost frame of the program's own code: where the traced function was called."""
    frame = sys._getframe(2)
    while frame is not None:
        if profile.is_user_file(frame.f_code.co_filename):
            return f"{profile.relative(frame.f_code.co_filename)}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"


def _short(value, limit: int = 60) -> str:
    if getattr(value, "shape", None) == () and hasattr(value, "item"):  # a 0-d array: its number
        value = value.item()
    text = repr(float(f"{value:.6g}")) if isinstance(value, float) else repr(value)  # float32 noise trimmed
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _function_label(value) -> str:
    code = getattr(value, "__code__", None)
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or type(value).__name__
    if code is not None:
        return f"`{name}` defined at {os.path.basename(code.co_filename)}:{code.co_firstlineno}"
    return f"`{name}`"


# -- PhiML -----------------------------------------------------------------------------------------
class _PhimlState:
    """Per transform object: its record, the keys it traced, and what the last call passed."""

    def __init__(self, record: dict) -> None:
        self.record = record
        self.keys: list = []  # traced keys, newest last (forgotten ones included)
        self.fingerprints: list = []  # what the arguments looked like at each trace, aligned with keys
        self.arguments: dict | None = None  # per-argument summary of the last call


def _arguments(functional, params: tuple, args: tuple, kwargs: dict) -> dict[str, tuple]:
    """What each argument looks like to a tracer: tensors by shape and dtype, Python numbers by value."""
    out = {}
    values = {**kwargs, **{params[i]: v for i, v in enumerate(args) if i < len(params)}}
    tensor_type = functional.Tensor
    for name, value in values.items():
        if isinstance(value, tensor_type):
            out[name] = ("tensor", str(value.shape), str(getattr(value, "dtype", "")))
        elif isinstance(value, (bool, int, float, complex)):
            out[name] = ("number", repr(value), type(value).__name__)
        elif callable(value) and not isinstance(value, type):
            out[name] = ("function", _function_label(value), id(value))
        elif isinstance(value, str):
            out[name] = ("str", repr(value), "")
        else:
            out[name] = ("object", type(value).__name__, "")
    return out


def _fingerprint(arguments: dict[str, tuple], auxiliary) -> tuple:
    """What PhiML's key sees of the arguments (not Python numbers, which it traces, nor dtypes)."""
    return tuple(sorted((name, kind, str(desc), str(extra) if kind == "function" else "")
                        for name, (kind, desc, extra) in arguments.items() if kind != "number" or name in auxiliary))


def _same(a, b) -> bool:
    functional = sys.modules["phiml.math._functional"]  # imported: it made the keys being compared
    try:
        with functional.equality_by_shape_and_value():
            equal = a == b
        if isinstance(equal, functional.Tensor):
            equal = equal.all
        elif not isinstance(equal, bool):  # numpy and native arrays: every element
            import numpy

            equal = numpy.all(numpy.asarray(equal))
        return bool(equal)
    except Exception:
        return a is b


_KINDS = {"tensor": "a tensor", "number": "a Python number", "function": "a function", "str": "a string", "object": "an object"}


def explain_key(new, old, new_args: dict, old_args: dict | None) -> tuple[str, str]:
    """(category, text): why PhiML traced `new` although `old` was traced before."""
    aux_new, aux_old = new.auxiliary_kwargs or {}, old.auxiliary_kwargs or {}
    changed = [n for n in sorted(set(aux_new) | set(aux_old)) if n not in aux_new or n not in aux_old or not _same(aux_new[n], aux_old[n])]
    if changed:
        name = changed[0]
        return "auxiliary", (f"auxiliary argument `{name}` changed: {_short(aux_old.get(name))} -> {_short(aux_new.get(name))}"
                             " (PhiML keys traces on auxiliary values)")
    if set(new.tree) != set(old.tree):
        return "arguments", f"different arguments passed: {sorted(old.tree)} -> {sorted(new.tree)}"
    for name in new.tree:
        if not _same(new.tree[name], old.tree[name]):
            now, before = (new_args or {}).get(name), (old_args or {}).get(name)
            if now and before and now[0] != before[0]:
                return "value", (f"argument `{name}` changed kind: {_KINDS.get(before[0], before[0])} -> "
                                 f"{_KINDS.get(now[0], now[0])} (PhiML keys traces on which arguments are tensors)")
            if now and now[0] == "function":
                return "function", (f"argument `{name}` is a new function object ({now[1]}); PhiML keys traces on it, "
                                    "so each new function traces again")
            if type(new.tree[name]) is type(old.tree[name]) and type(new.tree[name]).__eq__ is object.__eq__:
                return "value", (f"non-tensor argument `{name}` is a new `{type(new.tree[name]).__name__}` object, compared "
                                 "by identity (its class has no `__eq__`): PhiML keys traces on non-tensor values")
            return "value", (f"non-tensor argument `{name}` changed: {_short(old.tree[name])} -> {_short(new.tree[name])}"
                             " (PhiML keys traces on non-tensor values)")
    if new.backend != old.backend:
        return "backend", f"backend changed: {old.backend} -> {new.backend}"
    shapes = [n for n in (new_args or {}) if (new_args[n][0] == "tensor" and old_args and n in old_args
                                               and old_args[n][:2] != new_args[n][:2])]
    if shapes:
        name = shapes[0]
        return "shape", f"shape of `{name}` changed: {old_args[name][1]} -> {new_args[name][1]}"
    if not _same_specs(new, old):
        return "shape", "traced tensor shapes changed"
    return "other", "PhiML traced again for the same key (larger buffers or a different derivative order)"


def _same_specs(new, old) -> bool:
    try:
        from phiml.math._functional import specs_equal  # noqa: PLC0415

        return bool(specs_equal(new.specs, old.specs))
    except Exception:
        return False


def explain_hidden(new_args: dict, old_args: dict | None) -> tuple[str, str]:
    """Why the backend traced again under the same PhiML key."""
    for name, now in new_args.items():
        before = (old_args or {}).get(name)
        if before is None:
            continue
        if now[0] == "tensor" and before[0] == "tensor" and now[2] != before[2]:
            return "dtype", f"dtype of `{name}` changed: {before[2]} -> {now[2]} (PhiML's key ignores dtypes; jax and tensorflow trace again)"
        if now[0] == "number" and before[0] == "number" and now[1] != before[1]:
            return "python-number", (f"Python number `{name}` changed: {before[1]} -> {now[1]} (tensorflow traces once per "
                                     "Python value; pass it as a tensor)")
    return "backend-internal", "the backend traced again for the same PhiML key"


def install_phiml(profile: Profile, functional) -> None:
    profile.phiml_imported = True
    # Weak: a jit function created per call must still be freed (the program's memory is measured too).
    states: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
    stack: list[list] = []  # active calls: [state, traced?, body ran?, traced key]
    last_key_of_def: dict[int, object] = {}  # per record (records live as long as the profile)

    def active(obj) -> list | None:
        st = states.get(obj)
        return next((entry for entry in reversed(stack) if entry[0] is st), None) if st is not None else None

    def state_of(obj, kind: str) -> _PhimlState | None:
        existing = states.get(obj)
        if existing is not None:
            return existing
        function = obj.f
        while not isinstance(function, types.FunctionType) and hasattr(function, "f"):
            function = function.f  # jit_compile(gradient(f)): the def is the innermost
        function = getattr(function, "__wrapped__", function) if getattr(function, "__phiml_rewrite_body__", False) else function
        record = profile.record(kind, function)
        if record is None:
            return None
        new = _PhimlState(record)
        record["instances"] += 1
        record["forget_traces"] = record["forget_traces"] or bool(getattr(obj, "forget_traces", False))
        states[obj] = new
        return new

    def instrument_call(kind: str, cls, cache_attr: str) -> None:
        original = cls.__call__

        def call(self, *args, **kwargs):
            return observe(self, kind, cache_attr, args, kwargs, lambda: original(self, *args, **kwargs))

        cls.__call__ = call

    def observe(self, kind: str, cache_attr: str, args: tuple, kwargs: dict, run):
        """Run one call of a PhiML transform object and record what it traced, and why."""
        st = state_of(self, kind)
        if st is None:
            return run()
        record = st.record
        nested = any(frame[1] for frame in stack)  # called while an outer function is being traced
        arguments = _arguments(functional, getattr(self, "f_params", ()), args, kwargs)
        entry = [st, False, False, None]  # state, traced?, body ran?, traced key
        stack.append(entry)
        start = time.perf_counter()
        try:
            return run()
        finally:
            stack.pop()
            seconds = time.perf_counter() - start
            record["calls"] += 1
            record["call_seconds"] += seconds
            site = call_site(profile)
            _count(record["call_sites"], site)
            record["max_cache"] = max(record["max_cache"], len(getattr(self, cache_attr, {})))
            fingerprint = _fingerprint(arguments, getattr(self, "auxiliary_args", ()))
            key = entry[3]
            if key is not None:  # PhiML traced this call
                record["traces"] += 1
                record["trace_seconds"] += seconds
                _count(record["trace_sites"], site)
                previous = st.keys[-1] if st.keys else last_key_of_def.get(id(record))  # another object of the def
                if any(_same_key(key, k) for k in st.keys):
                    record["returned_keys"] += 1  # traced again a key it had traced (and forgotten) before
                if nested:
                    record["nested_traces"] += 1
                    add_reason(record, "nested", "traced while an outer function was being traced (each trace of the outer one traces it again)")
                elif previous is not None and not st.keys:
                    add_reason(record, "per-call", "a new jit function object for the same def: it is created again "
                                                  "on every call (define it once, at module level)")
                elif previous is not None:
                    add_reason(record, *_safely(explain_key, key, previous, arguments, st.arguments))
                st.keys = (st.keys + [key])[-MAX_KEYS:]
                last_key_of_def[id(record)] = key
                st.fingerprints = (st.fingerprints + [fingerprint])[-MAX_KEYS:]
            elif entry[2] and not nested:  # the body ran, yet PhiML used a cached trace: the backend traced again
                record["hidden_traces"] += 1
                _count(record["trace_sites"], site)
                add_reason(record, *_safely(explain_hidden, arguments, st.arguments))
            elif st.fingerprints and fingerprint != st.fingerprints[-1] and fingerprint in st.fingerprints:
                record["older_key_hits"] += 1  # a key traced earlier came back: the cache served it
            st.arguments = arguments

    def mark_trace(obj, key) -> None:
        entry = active(obj)
        if entry is not None:
            entry[1] = True
            entry[3] = key

    jit = functional.JitFunction
    original_compile = jit._jit_compile

    def traced_compile(self, in_key, *args, **kwargs):
        mark_trace(self, in_key)
        return original_compile(self, in_key, *args, **kwargs)

    jit._jit_compile = traced_compile
    original_init = jit.__init__

    def init(self, f, *args, **kwargs):
        original_init(self, f, *args, **kwargs)
        if isinstance(self.f, types.FunctionType):  # count runs of the Python body (hidden backend traces)
            body = self.f

            @functools.wraps(body)
            def counted(*a, **k):
                entry = active(self)
                if entry is not None:
                    entry[2] = True
                return body(*a, **k)

            counted.__phiml_rewrite_body__ = True
            self.f = counted

    jit.__init__ = init
    instrument_call("jit_compile", jit, "traces")

    linear = functional.LinearFunction
    original_linear = linear._get_or_trace

    def traced_linear(self, key, args, f_kwargs, *rest, **kwargs):
        def trace():
            if key.tracing or key not in self.matrices_and_biases:
                mark_trace(self, key)
            return original_linear(self, key, args, f_kwargs, *rest, **kwargs)

        if active(self) is not None:
            return trace()
        # solve_linear asks for the matrix without calling the function: that is a call too
        return observe(self, "jit_compile_linear", "matrices_and_biases", args, f_kwargs, trace)

    linear._get_or_trace = traced_linear
    instrument_call("jit_compile_linear", linear, "matrices_and_biases")

    original_check = functional.trace_check

    def observed_check(traced_function, *args, **kwargs):
        """The program asks what the cache remembers: forgetting traces would change its answer."""
        kind = {"LinearFunction": "jit_compile_linear", "CustomGradientFunction": "custom_gradient"}.get(
            type(traced_function).__name__, "jit_compile")
        by_program = profile.is_user_file(sys._getframe(1).f_code.co_filename)  # PhiML calls it itself too
        st = state_of(traced_function, kind) if by_program and hasattr(traced_function, "f") else None
        if st is not None:
            st.record["cache_inspected"] = st.record.get("cache_inspected") or call_site(profile)
        return original_check(traced_function, *args, **kwargs)

    functional.trace_check = observed_check
    custom = functional.CustomGradientFunction
    original_trace = custom._trace

    def traced_custom(self, in_key):
        mark_trace(self, in_key)
        return original_trace(self, in_key)

    custom._trace = traced_custom
    instrument_call("custom_gradient", custom, "traces")


def _safely(explain, *args) -> tuple[str, str]:
    """A profiler must never break the program it watches: an explanation that fails says so."""
    try:
        return explain(*args)
    except Exception as e:
        return "other", f"(no explanation: {type(e).__name__}: {e})"


def _same_key(a, b) -> bool:
    if a is None or b is None:
        return False
    try:
        return bool(a == b)
    except Exception:
        return a is b


# -- raw jax ---------------------------------------------------------------------------------------
MISS = "TRACING CACHE MISS at "


class _JaxMisses(logging.Handler):
    """jax explains each tracing cache miss in a log record: count them per user function."""

    def __init__(self, profile: Profile) -> None:
        super().__init__(logging.WARNING)
        self.profile = profile
        self.seen_objects: dict[str, set[str]] = {}

    def emit(self, log: logging.LogRecord) -> None:
        try:
            self.handle_miss(log.getMessage())
        except Exception:  # a profiler must never break the program
            pass

    def handle_miss(self, message: str) -> None:
        if not message.startswith(MISS):
            return
        lines = message.splitlines()
        site = lines[0][len(MISS):].rsplit(" (", 1)[0]
        body = [line.strip() for line in lines[1:]]
        defined = next((line for line in body if " defined at " in line), "")
        name, _, location = defined.partition(" defined at ")
        name = name.removeprefix("for ").split(" id=")[0].strip()
        path, _, line = location.rpartition(":")
        if not path or not line.isdigit() or not self.profile.is_user_file(path):
            return
        record = self.profile.record_at("jax.jit", name, path, int(line))
        record["traces"] += 1
        site_path, _, rest = site.partition(":")
        site_label = f"{self.profile.relative(site_path)}:{rest.split(':')[0]}" if site_path else "?"
        _count(record["trace_sites"], site_label)
        _count(record["call_sites"], site_label)
        if record["traces"] == 1:
            return
        category, text = _jax_reason(body)
        add_reason(record, category, text)


def _jax_reason(body: list[str]) -> tuple[str, str]:
    if body and body[0].startswith("never seen function"):
        return "per-call", ("a new jit wrapper of the same function: `jax.jit` is applied again (per call, in a loop, "
                            "or to an already jitted function), and each wrapper compiles afresh")
    details = [line.lstrip("* ") for line in body if line.startswith("*")]
    text = "; ".join(details) or " ".join(body[1:3])
    if "Static(" in text or "static" in text.lower():
        return "static", f"static argument changed: {text}"
    if "different input types" in " ".join(body):
        if any(_only_dtype(d) for d in details):
            return "dtype", f"dtype changed: {text}"
        return "shape", f"input shapes changed: {text}"
    return "other", text


def _only_dtype(detail: str) -> bool:
    """`at x, now i32[3] and before f32[3]`: the same dimensions, another element type."""
    if " now " not in detail or " and before " not in detail:
        return False
    now, _, before = detail.split(" now ", 1)[1].partition(" and before ")
    return now.partition("[")[2] == before.partition("[")[2] and now.partition("[")[0] != before.partition("[")[0]


def install_jax(profile: Profile, jax) -> None:
    try:
        jax.config.update("jax_explain_cache_misses", True)
    except Exception:
        return
    handler = _JaxMisses(profile)
    for name in ("jax._src.interpreters.partial_eval", "jax._src.pjit"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.propagate = False  # the explanations are for the profile, not for the program's output


# -- raw tensorflow --------------------------------------------------------------------------------
def install_tensorflow(profile: Profile, tf) -> None:
    try:
        from tensorflow.python.eager.polymorphic_function import tracing_compilation
    except ImportError:
        return
    original = tracing_compilation._create_concrete_function
    last_signature: dict[str, dict[str, str]] = {}

    def traced(function_type, type_context, func_graph, tracing_options, *args, **kwargs):
        try:
            python_function = tracing_options.python_function
            record = profile.record("tf.function", python_function)
            if record is not None:
                record["traces"] += 1
                site = call_site(profile)
                _count(record["trace_sites"], site)
                signature = {name: str(p.type_constraint) for name, p in function_type.parameters.items()}
                key = f"{record['file']}:{record['line']}"
                before = last_signature.get(key)
                if before is not None:
                    changed = [n for n in signature if before.get(n) != signature[n]]
                    name = changed[0] if changed else None
                    if name is None:
                        add_reason(record, "other", "tf.function traced again with the same input signature")
                    elif "Literal" in signature[name] or "Literal" in before.get(name, ""):
                        add_reason(record, "python-number", f"Python value `{name}` changed: {before.get(name)} -> "
                                                            f"{signature[name]} (tf.function traces once per Python value; pass a tensor)")
                    else:
                        add_reason(record, "shape", f"input signature of `{name}` changed: {before.get(name)} -> {signature[name]}")
                last_signature[key] = signature
        except Exception:
            pass
        return original(function_type, type_context, func_graph, tracing_options, *args, **kwargs)

    tracing_compilation._create_concrete_function = traced


def hooks(profile: Profile) -> dict:
    return {
        "phiml.math._functional": lambda module: install_phiml(profile, module),
        "jax": lambda module: install_jax(profile, module),
        "tensorflow": lambda module: install_tensorflow(profile, module),
    }


def install(config: dict) -> Profile:
    profile = state.profile = Profile(config)
    return profile
