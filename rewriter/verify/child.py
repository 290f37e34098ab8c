"""Executed in a fresh interpreter: call the entry function of programs on one backend, record results.

The golden tests' harness. It installs the same runtime as `phiml-rewrite verify` (backend choice,
eager mode, trace counts) and, instead of running a command, imports each program by path and calls
its entry function.

Usage: python -m rewriter.verify.child SPEC.json OUT.json
SPEC: {"backend": "jax", "framework": "phiml"|"jax", "eager": false, "runs": [{"label", "path", "entry", "eager"}]}
OUT:  {"label": {"value": plain data} | {"error": "Type: message", "traceback"}, "phiml_traces", "jax_compiles",
                 "phiml_cache" (the most traces one PhiML jit function held at once)}
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import traceback
import warnings

from .. import runtime


def _load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _project(path: str, enabled: bool):
    """A program of several modules: its folder is importable while it runs, and the modules loaded
    from there are forgotten afterwards, so that the next program (its rewrite, in another folder)
    imports its own `physics`, not this one's."""
    if not enabled:
        yield
        return
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        sys.path.remove(folder)
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None) or ""
            if file and os.path.abspath(file).startswith(folder + os.sep):
                del sys.modules[name]


def _jax_disabled():
    import jax

    return jax.disable_jit()


def _reset_phiml_torch_state() -> None:
    """A failed torch trace leaves PhiML's global jit state dirty: the next program in this interpreter
    would run inside the failed trace's bookkeeping."""
    torch_backend = sys.modules.get("phiml.backend.torch._torch_backend")
    if torch_backend is not None and hasattr(torch_backend, "CURRENT_JIT_CALLS"):
        torch_backend.CURRENT_JIT_CALLS.clear()


def leave_phiml_unconverted() -> None:
    """Autograph converts every function a `tf.function` calls, PhiML's own internals included, and
    converting them is most of what a PhiML program costs on tensorflow (on the golden cases:
    docs/benchmarks.md). A harness that runs many programs may leave PhiML as it is, as autograph
    already leaves numpy and tensorflow: the programs' own functions are converted as before."""
    from tensorflow.python.autograph.core import config

    config.CONVERSION_RULES = (config.DoNotConvert("phiml"), *config.CONVERSION_RULES)


def main(spec_path: str, out_path: str) -> None:
    spec = json.load(open(spec_path))
    warnings.filterwarnings("ignore")
    backend = spec["backend"] if spec["framework"] == "phiml" else None
    recorder = runtime.install({"backend": backend, "eager": spec.get("eager", False), "instrument": {}})
    if backend:
        from phiml import backend as phiml_backend  # the runtime's import hook selects the backend

        selected = phiml_backend.default_backend().name
        assert backend == "numpy" or selected == backend, f"PhiML runs on {selected}, not {backend}"
    if backend == "tensorflow" and not spec.get("convert_phiml", True):
        leave_phiml_unconverted()
    out = {}
    for i, run in enumerate(spec["runs"]):
        recorder.phiml_traces.clear()
        recorder.phiml_cache.clear()
        recorder.jax_compiles.clear()
        recorder.user_functions = runtime.function_names(run["path"])
        record: dict = {}
        eager = spec.get("eager", False) or run.get("eager", False)
        runtime.state.config["eager"] = eager
        try:
            with _jax_disabled() if eager and spec["framework"] == "jax" else contextlib.nullcontext(), \
                    _project(run["path"], run.get("project", False)):
                module = _load(run["path"], f"_verified_{i}_{run['label']}")
                record["value"] = runtime.to_plain(getattr(module, run["entry"])())
        except Exception as e:  # the program's own failure is a result, not a harness error
            record["error"] = runtime.describe(e)
            record["traceback"] = traceback.format_exc()[-2000:]
            _reset_phiml_torch_state()
        record["phiml_traces"] = sum(recorder.phiml_traces.values())
        record["jax_compiles"] = sum(recorder.jax_compiles.values())
        record["phiml_cache"] = max(recorder.phiml_cache.values(), default=0)
        out[run["label"]] = record
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
