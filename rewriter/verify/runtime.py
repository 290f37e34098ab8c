"""Runs inside the verified program: backend choice, eager mode, function recording, trace counts.

This file is self-contained (standard library, plus numpy when values are recorded) because
`verify` copies it next to a generated `sitecustomize.py` and loads it into the user's interpreter,
which need not have phiml-rewrite installed. Configuration comes from the JSON file named by
`PHIML_REWRITE_VERIFY_CONFIG`:

    {"backend": "torch" | null,     # PhiML's default backend (null: raw framework code)
     "eager": false,                # disable jit: PhiML jit_compile, jax.jit, torch.jit, tf.function
     "instrument": {"/abs/file.py": {"id": "pkg/file.py", "units": ["step", "Model.forward"]}},
                                    # units to record, as "pkg/file.py:step"
     "out": "/abs/dir",             # records-<pid>.json is written here at exit
     "record_inputs": false,        # pickle the inputs of the first calls (for replay)
     "seed": 0}
"""
from __future__ import annotations

import ast
import atexit
import functools
import importlib.abc
import importlib.machinery
import json
import os
import pickle
import sys
import threading

CONFIG_ENV = "PHIML_REWRITE_VERIFY_CONFIG"
BACKEND_ENV = "PHIML_REWRITE_BACKEND"
RECORD_NAME = "__phiml_rewrite_record__"
RUNNER_MODULE = "_phiml_rewrite_verify"  # this file's name where verify installs it
MAX_VALUES = 20  # recorded return values per unit (all calls are counted)
MAX_INPUTS = 3  # recorded inputs per unit, for replay
MAX_ELEMENTS = 200_000  # larger arrays are recorded as summary statistics


# ------------------------------------------------------------------------------------------------
# Values as plain data
# ------------------------------------------------------------------------------------------------
class NotConcrete(Exception):
    """A symbolic value (a tracer, a graph tensor): only exists while a function is being traced."""


def to_plain(value):
    """PhiML tensors, jax/torch/tf arrays, numpy, scalars and containers -> JSON-able data."""
    import numpy as np

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
        try:
            array = np.asarray(array)
        except Exception as e:
            raise NotConcrete(type(e).__name__) from None
        if array.dtype.kind == "c":
            array = np.stack([array.real, array.imag], -1)
        if array.dtype == object:
            raise NotConcrete("object array")
        if array.size > MAX_ELEMENTS:
            a = array.astype(float)
            return {"__summary__": [float(a.sum()), float(np.abs(a).sum()), float(a.min()), float(a.max())],
                    "shape": list(array.shape)}
        return {"__array__": array.tolist(), "shape": list(array.shape)}
    fields = _value_fields(value)
    if fields is not None:  # PhiFlow fields and geometries, dataclasses: their values, by name
        return {"__object__": type(value).__name__, "__dict__": {name: to_plain(getattr(value, name)) for name in fields}}
    return {"__repr__": repr(value)}


def _value_fields(value):
    import dataclasses

    if isinstance(value, type):
        return None
    if hasattr(value, "__value_attrs__"):
        try:
            return tuple(value.__value_attrs__())
        except Exception:
            return None
    if dataclasses.is_dataclass(value):
        return tuple(f.name for f in dataclasses.fields(value))
    return None


def _native_array(value):
    module = type(value).__module__
    if module.startswith("phiml"):
        from phiml import math

        if isinstance(value, math.Tensor):
            return value.numpy(value.shape.names) if value.shape.rank else value.numpy()
        if isinstance(value, math.Shape):
            return None
    if module.startswith("jax") and "Tracer" in type(value).__name__:
        raise NotConcrete("jax tracer")
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # torch
        return value.detach().cpu().numpy()
    if hasattr(value, "numpy") and callable(value.numpy):  # tensorflow, jax
        try:
            return value.numpy()
        except Exception as e:  # a symbolic tf tensor
            raise NotConcrete(type(e).__name__) from None
    if hasattr(value, "__array__"):
        return value
    return None


# ------------------------------------------------------------------------------------------------
# Recording
# ------------------------------------------------------------------------------------------------
def _leaked_modules() -> list[str]:
    """Modules loaded from the user's real tree instead of the copy (an editable install, a path
    hard-coded in the program): their results say nothing about the version under test."""
    real, workspace = CONFIG.get("real_root"), CONFIG.get("workspace")
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
        self.jax_compiles: dict[str, int] = {}
        self.tf_traces: dict[str, int] = {}
        self.user_functions: set[str] = set()
        self.backend_requests: list[str] = []  # backends the program selected itself (overridden)
        self.inputs_dir = os.path.join(config["out"], f"inputs-{os.getpid()}") if config.get("record_inputs") else None
        self._local = threading.local()

    def wrap(self, unit: str, obj):
        """`obj` recorded under `unit`: functions keep their signature (PhiML inspects it)."""
        if hasattr(obj, "__phiml_rewrite_unit__") or not callable(obj) or isinstance(obj, type):
            return obj
        recorder = self

        if isinstance(obj, (staticmethod, classmethod)):
            return type(obj)(self.wrap(unit, obj.__func__))

        @functools.wraps(obj)
        def recorded(*args, **kwargs):
            return recorder.call(unit, obj, args, kwargs)

        recorded.__phiml_rewrite_unit__ = unit
        return recorded

    def call(self, unit: str, function, args, kwargs):
        key = f"{self.context}::{unit}" if self.context else unit
        if _tracing() or _has_tracer(args, kwargs):
            self.skipped_traced[key] = self.skipped_traced.get(key, 0) + 1
            return function(*args, **kwargs)
        index = self.counts.get(key, 0)
        self.counts[key] = index + 1
        inputs = self._save_inputs(key, index, args, kwargs)
        try:
            result = function(*args, **kwargs)
        except BaseException as e:
            if index < MAX_VALUES:
                self.calls.setdefault(key, []).append({"index": index, "error": _describe(e), "inputs": inputs})
            raise
        if index < MAX_VALUES:
            entry = {"index": index, "inputs": inputs}
            try:
                entry["value"] = to_plain(result)
            except NotConcrete as e:
                entry["not_concrete"] = str(e)
            except Exception as e:  # an unusual return type must not break the user's program
                entry["unrecordable"] = _describe(e)
            self.calls.setdefault(key, []).append(entry)
        return result

    def _save_inputs(self, key: str, index: int, args, kwargs) -> str | None:
        if self.inputs_dir is None or index >= MAX_INPUTS:
            return None
        os.makedirs(self.inputs_dir, exist_ok=True)
        path = os.path.join(self.inputs_dir, f"{len(os.listdir(self.inputs_dir))}.pkl")
        try:
            with open(path, "wb") as f:
                pickle.dump((args, kwargs), f)
        except Exception as e:
            if os.path.exists(path):
                os.unlink(path)
            return f"!{_describe(e)}"
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


def _describe(e: BaseException) -> str:
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


# ------------------------------------------------------------------------------------------------
# Instrumentation at load time (an AST transform of the module being imported, nothing on disk)
# ------------------------------------------------------------------------------------------------
def instrument(tree: ast.Module, units: set[str], file_id: str) -> ast.Module:
    """After each statement defining a unit, rebind the name to its wrapper recording "file_id:unit"."""

    def rebind(name: str, unit: str, after: ast.stmt) -> ast.stmt:
        call = ast.Call(ast.Name(RECORD_NAME, ast.Load()), [ast.Constant(f"{file_id}:{unit}"), ast.Name(name, ast.Load())], [])
        node = ast.Assign([ast.Name(name, ast.Store())], call)
        return ast.copy_location(node, after)

    def walk(body: list[ast.stmt], prefix: str) -> list[ast.stmt]:
        out = []
        for stmt in body:
            out.append(stmt)
            for name in defined_names(stmt):
                if prefix + name in units:
                    out.append(rebind(name, prefix + name, stmt))
            if isinstance(stmt, ast.ClassDef) and not prefix:
                stmt.body = walk(stmt.body, stmt.name + ".")
        return out

    tree.body = walk(tree.body, "")
    return ast.fix_missing_locations(tree)


def defined_names(stmt: ast.stmt) -> list[str]:
    """Names a statement binds that can be recorded: defs, classes' methods, plain assignments."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


class _InstrumentingLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, target: dict) -> None:
        super().__init__(fullname, path)
        self.target = target

    def source_to_code(self, data, path, *, _optimize=-1):
        tree = ast.parse(data, path)
        return compile(instrument(tree, set(self.target["units"]), self.target["id"]), path, "exec", dont_inherit=True)

    def get_code(self, fullname):  # never read or write a cached .pyc of the instrumented code
        return self.source_to_code(self.get_data(self.path), self.path)

    def exec_module(self, module) -> None:
        module.__dict__[RECORD_NAME] = RECORDER.wrap
        super().exec_module(module)


class _Finder(importlib.abc.MetaPathFinder):
    """Instruments the configured files and runs hooks once certain modules are imported."""

    def __init__(self, instrument_map: dict[str, dict], hooks: dict) -> None:
        self.instrument_map = {os.path.realpath(p): target for p, target in instrument_map.items()}
        # a module can only come from one of those files if its last name matches the file (or package)
        self.stems = {_stem(p) for p in self.instrument_map}
        self.hooks = hooks
        self._busy: set[str] = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self._busy or (fullname not in self.hooks and fullname.rpartition(".")[2] not in self.stems):
            return None
        self._busy.add(fullname)
        try:
            spec = importlib.machinery.PathFinder.find_spec(fullname, path) if fullname not in self.hooks else None
            if fullname in self.hooks:
                for finder in sys.meta_path:
                    if finder is self or not hasattr(finder, "find_spec"):
                        continue
                    spec = finder.find_spec(fullname, path, target)
                    if spec is not None:
                        break
        finally:
            self._busy.discard(fullname)
        if spec is None or spec.origin is None:
            return None
        origin = os.path.realpath(spec.origin)
        if origin in self.instrument_map:
            spec.loader = _InstrumentingLoader(fullname, spec.origin, self.instrument_map[origin])
            return spec
        if fullname in self.hooks and spec.loader is not None:
            spec.loader = _HookedLoader(spec.loader, self.hooks[fullname])
            return spec
        return None


def _stem(path: str) -> str:
    name = os.path.splitext(os.path.basename(path))[0]
    return os.path.basename(os.path.dirname(path)) if name == "__init__" else name


class _HookedLoader(importlib.abc.Loader):
    def __init__(self, loader, hook) -> None:
        self.loader, self.hook = loader, hook

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        self.hook(module)

    def __getattr__(self, name):
        return getattr(self.loader, name)


# ------------------------------------------------------------------------------------------------
# Backends: selection, eager mode, trace counts
# ------------------------------------------------------------------------------------------------
def _on_phiml_functional(functional) -> None:
    jit_function = functional.JitFunction
    original_compile = jit_function._jit_compile

    def counting_compile(self, *args, **kwargs):
        name = functional.f_name(self.f)
        RECORDER.phiml_traces[name] = RECORDER.phiml_traces.get(name, 0) + 1
        return original_compile(self, *args, **kwargs)

    jit_function._jit_compile = counting_compile
    original_call = jit_function.__call__

    def call(self, *args, **kwargs):  # eager: what PhiML itself does on a backend without jit (numpy)
        return self.f(*args, **kwargs) if CONFIG.get("eager") else original_call(self, *args, **kwargs)

    jit_function.__call__ = call


def _on_phiml_math(math) -> None:
    """Select the backend under verification, and keep it: a program that picks its own backend
    (`math.use('jax')`, `from phi.torch.flow import *`) would otherwise run on that one every time.
    What it asked for is recorded, and the report says so."""
    backend = CONFIG.get("backend")
    if not backend:
        return
    from phiml import backend as phiml_backend
    from phiml.backend import _backend

    original = _backend.set_global_default_backend
    original(backend)

    def pinned(requested):
        name = getattr(requested, "name", None) or getattr(requested, "__name__", None) or str(requested)
        if name.lower() != backend:
            RECORDER.backend_requests.append(name.lower())
        return original(backend)

    _backend.set_global_default_backend = phiml_backend.set_global_default_backend = math.use = pinned


def _on_jax(jax) -> None:
    import jax.monitoring

    def on_event(event: str, duration: float, **kwargs) -> None:
        name = _user_name(str(kwargs.get("fun_name", "")))
        if event == "/jax/core/compile/backend_compile_duration" and name:
            RECORDER.jax_compiles[name] = RECORDER.jax_compiles.get(name, 0) + 1

    jax.monitoring.register_event_duration_secs_listener(on_event)


def _user_name(fun_name: str) -> str | None:
    """`jit(native(step))` -> `step`; eager jax compiles every primitive (`sin`), which are not the program's."""
    for wrapper in ("jit(", "pjit(", "native("):
        if fun_name.startswith(wrapper) and fun_name.endswith(")"):
            return _user_name(fun_name[len(wrapper):-1])
    return fun_name if fun_name in RECORDER.user_functions else None


def _on_tensorflow(tf) -> None:
    if CONFIG.get("eager"):
        tf.config.run_functions_eagerly(True)
    try:  # tf.function traces of the program's functions (PhiML's are counted as PhiML traces)
        from tensorflow.python.eager.polymorphic_function import tracing_compilation
    except ImportError:
        return
    original = tracing_compilation._create_concrete_function

    def counting(function_type, type_context, func_graph, tracing_options, *args, **kwargs):
        name = getattr(tracing_options.python_function, "__name__", "")
        if name in RECORDER.user_functions:  # not PhiML's `native(f)`: those are PhiML traces
            RECORDER.tf_traces[name] = RECORDER.tf_traces.get(name, 0) + 1
        return original(function_type, type_context, func_graph, tracing_options, *args, **kwargs)

    tracing_compilation._create_concrete_function = counting


def _seed() -> None:
    import random

    random.seed(CONFIG.get("seed", 0))
    try:
        import numpy

        numpy.random.seed(CONFIG.get("seed", 0))
    except ImportError:
        pass


def _on_torch(torch) -> None:
    torch.manual_seed(CONFIG.get("seed", 0))


def select_environment(backend: str | None, eager: bool) -> dict[str, str]:
    """Environment variables a verified process needs before any framework is imported."""
    env = {"TF_CPP_MIN_LOG_LEVEL": "3", "JAX_PLATFORMS": "cpu", "PYTHONHASHSEED": "0"}
    if backend:
        env[BACKEND_ENV] = backend
    if eager:
        env.update({"JAX_DISABLE_JIT": "1", "PYTORCH_JIT": "0", "TORCH_COMPILE_DISABLE": "1"})
    return env


CONFIG: dict = {}
RECORDER: Recorder | None = None


def install(config: dict) -> Recorder:
    """Set up this process: hooks for the frameworks, the instrumenting import finder, the dump at exit."""
    global RECORDER
    CONFIG.clear()
    CONFIG.update(config)
    RECORDER = Recorder(config)
    for path in config.get("instrument", {}):
        RECORDER.user_functions |= _function_names(path)
    hooks = {"phiml.math._functional": _on_phiml_functional, "phiml.math": _on_phiml_math, "jax": _on_jax,
             "tensorflow": _on_tensorflow, "torch": _on_torch}
    for name, hook in hooks.items():
        if name in sys.modules:
            hook(sys.modules[name])
    sys.meta_path.insert(0, _Finder(config.get("instrument", {}), hooks))
    _seed()
    if config.get("out"):
        atexit.register(RECORDER.dump)
    return RECORDER


def _function_names(path: str) -> set[str]:
    try:
        tree = ast.parse(open(path, "rb").read())
    except (OSError, SyntaxError, ValueError):
        return set()
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))} | {"<lambda>"}


def install_from_env() -> None:
    """Called by the generated sitecustomize.py in every Python process the verified command starts."""
    path = os.environ.get(CONFIG_ENV)
    if not path or RECORDER is not None:
        return
    with open(path) as f:
        install(json.load(f))
    main = _main_script()
    if main and os.path.realpath(main) in {os.path.realpath(p) for p in CONFIG.get("instrument", {})}:
        # The interpreter would run the script uninstrumented, and site customisation cannot run it
        # in its place: start over with this module as the runner (flags kept, same process id).
        argv = sys.orig_argv
        flags = argv[1:len(argv) - len(sys.argv)]
        os.execv(sys.executable, [sys.executable, *flags, "-m", RUNNER_MODULE, *sys.argv])


def _main_script() -> str | None:
    argv = getattr(sys, "orig_argv", [])
    if sys.argv and sys.argv[0] not in ("", "-c", "-m") and os.path.isfile(sys.argv[0]) and len(argv) >= 2:
        return sys.argv[0]
    return None


def run_main(path: str, args: list[str]) -> None:
    """Execute a script as `__main__` with its recorded units instrumented (the interpreter cannot)."""
    import types

    with open(path, "rb") as f:
        source = f.read()
    target = next(t for p, t in CONFIG.get("instrument", {}).items() if os.path.realpath(p) == os.path.realpath(path))
    code = compile(instrument(ast.parse(source, path), set(target["units"]), target["id"]), path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__dict__[RECORD_NAME] = RECORDER.wrap
    module.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = module
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    exec(code, module.__dict__)


def replay(spec_path: str, out_path: str) -> None:
    """Call units of one tree on inputs recorded in the reference run; record what they return.

    spec: {"root": tree, "items": [{"file", "unit", "key", "index", "inputs"}]}. A module is
    imported by its path under the tree (as a package module where it is one); `__main__` is aliased
    to it so that objects the program pickled from its main script can be loaded.
    """
    with open(spec_path) as f:
        spec = json.load(f)
    sys.path[:0] = [spec["root"]]
    modules: dict = {}
    out: dict[str, list] = {}
    for item in spec["items"]:
        entry = {"index": item["index"]}
        try:
            module = modules.get(item["file"]) or modules.setdefault(item["file"], _load_for_replay(item["file"], spec["root"]))
            function = module
            for part in item["unit"].split("."):
                function = getattr(function, part)
            function = getattr(function, "__wrapped__", function) if hasattr(function, "__phiml_rewrite_unit__") else function
            sys.modules["__main__"] = module
            with open(item["inputs"], "rb") as f:
                args, kwargs = pickle.load(f)
            result = function(*args, **kwargs)
            entry["value"] = to_plain(result)
        except NotConcrete as e:
            entry["not_concrete"] = str(e)
        except Exception as e:
            entry["error"] = _describe(e)
        out.setdefault(item["key"], []).append(entry)
    with open(out_path, "w") as f:
        json.dump(out, f)


def _load_for_replay(path: str, root: str):
    import importlib
    import importlib.util

    rel = os.path.relpath(path, root)
    parts = rel[:-3].split(os.sep)
    if parts[-1] == "__init__":
        parts.pop()
    package_dirs = [os.path.join(root, *parts[:i]) for i in range(1, len(parts))]
    if all(os.path.exists(os.path.join(d, "__init__.py")) for d in package_dirs):
        sys.path.insert(0, root)
        return importlib.import_module(".".join(parts))
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("__phiml_rewrite_replayed__", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":  # python -m _phiml_rewrite_verify (--replay SPEC OUT | SCRIPT ARGS)
    import importlib

    _runtime = importlib.import_module(RUNNER_MODULE)
    if sys.argv[1:2] == ["--replay"]:
        _runtime.replay(sys.argv[2], sys.argv[3])
    else:
        _runtime.run_main(sys.argv[1], sys.argv[2:])
