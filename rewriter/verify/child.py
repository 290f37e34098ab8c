"""Executed in a fresh interpreter: import programs on one backend, call their entry, record results.

Usage: python -m rewriter.verify.child SPEC.json OUT.json
SPEC: {"backend": "jax", "framework": "phiml"|"jax", "runs": [{"label", "path", "entry", "eager"}]}
OUT:  {"label": {"value": plain data} | {"error": "Type: message"}, plus "phiml_traces", "jax_compiles"}
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import traceback
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("OMP_NUM_THREADS", "1")


class _Counters:
    """PhiML traces (JitFunction._jit_compile calls) and jax compiles of the program's own functions.

    Eager jax dispatch compiles every primitive once (`sin`, `mul`, ...): those events are not the
    program's and would depend on what ran before in the process, so only compiles whose function
    name is a function defined in the program (or PhiML's `native(name)` wrapper of one) count.
    """

    def __init__(self) -> None:
        self.phiml_traces = 0
        self.jax_compiles = 0
        self.user_functions: set[str] = set()

    def _is_user(self, fun_name: str) -> bool:
        """`jit(native(step))` -> `step`: strip the wrappers jax and PhiML put around the name."""
        for wrapper in ("jit(", "pjit(", "native("):
            if fun_name.startswith(wrapper) and fun_name.endswith(")"):
                return self._is_user(fun_name[len(wrapper):-1])
        return fun_name in self.user_functions

    def install(self, framework: str, backend: str) -> None:
        if framework == "phiml":
            from phiml.math import _functional

            original = _functional.JitFunction._jit_compile
            counters = self

            def counting(self_, *args, **kwargs):
                counters.phiml_traces += 1
                return original(self_, *args, **kwargs)

            _functional.JitFunction._jit_compile = counting
        if backend == "jax" or framework == "jax":
            import jax.monitoring

            def on_event(event: str, duration: float, **kwargs) -> None:
                if event == "/jax/core/compile/backend_compile_duration" and self._is_user(str(kwargs.get("fun_name", ""))):
                    self.jax_compiles += 1

            jax.monitoring.register_event_duration_secs_listener(on_event)


def _function_names(path: str) -> set[str]:
    import ast

    tree = ast.parse(open(path, "rb").read())
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))} | {"<lambda>"}


def _load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _reset_phiml_torch_state() -> None:
    """A failed torch trace leaves PhiML's global jit state dirty (DESIGN.md §4, harness hazards)."""
    torch_backend = sys.modules.get("phiml.backend.torch._torch_backend")
    if torch_backend is not None and hasattr(torch_backend, "CURRENT_JIT_CALLS"):
        torch_backend.CURRENT_JIT_CALLS.clear()


def main(spec_path: str, out_path: str) -> None:
    from rewriter.verify.values import to_plain

    spec = json.load(open(spec_path))
    backend, framework = spec["backend"], spec["framework"]
    warnings.filterwarnings("ignore")
    if framework == "phiml":
        from phiml import math

        math.use(backend)
    counters = _Counters()
    counters.install(framework, backend)
    out = {}
    for i, run in enumerate(spec["runs"]):
        counters.phiml_traces = counters.jax_compiles = 0
        counters.user_functions = _function_names(run["path"])
        record: dict = {}
        try:
            eager = contextlib.nullcontext()
            if run.get("eager") and framework == "jax":
                import jax

                eager = jax.disable_jit()
            with eager:
                module = _load(run["path"], f"_verified_{i}_{run['label']}")
                value = getattr(module, run["entry"])()
            record["value"] = to_plain(value)
        except Exception as e:  # the program's own failure is a result, not a harness error
            record["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:500]
            record["traceback"] = traceback.format_exc()[-2000:]
            _reset_phiml_torch_state()
        record["phiml_traces"] = counters.phiml_traces
        record["jax_compiles"] = counters.jax_compiles
        out[run["label"]] = record
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
