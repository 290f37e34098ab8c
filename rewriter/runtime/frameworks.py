"""Hooks run when a framework is imported: backend selection, eager mode, trace counts, seeds (`generators`)."""
from __future__ import annotations

from . import generators
from .state import state

BACKEND_ENV = "PHIML_REWRITE_BACKEND"


def _on_phiml_functional(functional) -> None:
    jit_function = functional.JitFunction
    original_compile = jit_function._jit_compile

    def counting_compile(self, *args, **kwargs):
        name = functional.f_name(self.f)
        state.recorder.phiml_traces[name] = state.recorder.phiml_traces.get(name, 0) + 1
        # PhiML adds this trace next (after clearing the cache, with forget_traces=True)
        state.recorder.phiml_cache[name] = max(state.recorder.phiml_cache.get(name, 0), len(self.traces) + 1)
        return original_compile(self, *args, **kwargs)

    jit_function._jit_compile = counting_compile

    # `jit_compile_linear` traces a linear function into a matrix; custom gradients trace both
    # functions: both are traces keyed on the function object, as costly to repeat as a jit trace.
    # Only the program's own functions count (PhiML's solvers use custom gradients internally).
    linear = functional.LinearFunction
    original_linear = linear._get_or_trace

    def counting_linear(self, key, *args, **kwargs):
        name = functional.f_name(self.f)
        if (key.tracing or key not in self.matrices_and_biases) and name in state.recorder.user_functions:
            state.recorder.phiml_traces[f"linear({name})"] = state.recorder.phiml_traces.get(f"linear({name})", 0) + 1
        return original_linear(self, key, *args, **kwargs)

    linear._get_or_trace = counting_linear
    custom = functional.CustomGradientFunction
    original_custom = custom._trace

    def counting_custom(self, *args, **kwargs):
        name = functional.f_name(self.f)
        if name in state.recorder.user_functions:  # not PhiML's own (solve_linear's backward pass)
            key = f"custom_gradient({name})"
            state.recorder.phiml_traces[key] = state.recorder.phiml_traces.get(key, 0) + 1
        return original_custom(self, *args, **kwargs)

    custom._trace = counting_custom
    original_call = jit_function.__call__

    def call(self, *args, **kwargs):  # eager: what PhiML itself does on a backend without jit (numpy)
        return self.f(*args, **kwargs) if state.config.get("eager") else original_call(self, *args, **kwargs)

    jit_function.__call__ = call


def _on_phiml_math(math) -> None:
    """Select the backend under verification, and keep it: a program that picks its own backend
    (`math.use('jax')`, `from phi.torch.flow import *`) would otherwise run on that one every time.
    What it asked for is recorded, and the report says so."""
    backend = state.config.get("backend")
    if not backend:
        return
    from phiml import backend as phiml_backend
    from phiml.backend import _backend

    original = _backend.set_global_default_backend
    original(backend)

    def pinned(requested):
        name = getattr(requested, "name", None) or getattr(requested, "__name__", None) or str(requested)
        if name.lower() != backend:
            state.recorder.backend_requests.append(name.lower())
        return original(backend)

    _backend.set_global_default_backend = phiml_backend.set_global_default_backend = math.use = pinned


def _on_jax(jax) -> None:
    import jax.monitoring

    def on_event(event: str, duration: float, **kwargs) -> None:
        name = _user_name(str(kwargs.get("fun_name", "")))
        if event == "/jax/core/compile/backend_compile_duration" and name:
            state.recorder.jax_compiles[name] = state.recorder.jax_compiles.get(name, 0) + 1

    jax.monitoring.register_event_duration_secs_listener(on_event)


def _user_name(fun_name: str) -> str | None:
    """`jit(native(step))` -> `step`; eager jax compiles every primitive (`sin`), which are not the program's."""
    for wrapper in ("jit(", "pjit(", "native("):
        if fun_name.startswith(wrapper) and fun_name.endswith(")"):
            return _user_name(fun_name[len(wrapper):-1])
    return fun_name if fun_name in state.recorder.user_functions else None


def _on_tensorflow(tf) -> None:
    generators.seed_tensorflow(tf, state.config.get("seed", 0))
    if state.config.get("eager"):
        tf.config.run_functions_eagerly(True)
    try:  # tf.function traces of the program's functions (PhiML's are counted as PhiML traces)
        from tensorflow.python.eager.polymorphic_function import tracing_compilation
    except ImportError:
        return
    original = tracing_compilation._create_concrete_function

    def counting(function_type, type_context, func_graph, tracing_options, *args, **kwargs):
        name = getattr(tracing_options.python_function, "__name__", "")
        if name in state.recorder.user_functions:  # not PhiML's `native(f)`: those are PhiML traces
            state.recorder.tf_traces[name] = state.recorder.tf_traces.get(name, 0) + 1
        return original(function_type, type_context, func_graph, tracing_options, *args, **kwargs)

    tracing_compilation._create_concrete_function = counting


def seed() -> None:
    """Python's and NumPy's generators; torch's and tensorflow's are seeded by their import hooks."""
    generators.seed_python_and_numpy(state.config.get("seed", 0))


def _on_torch(torch) -> None:
    generators.seed_torch(torch, state.config.get("seed", 0))


def select_environment(backend: str | None, eager: bool) -> dict[str, str]:
    """The environment of a verified process (this one's, without stale verify settings), with what
    it needs before any framework is imported: backend, eager mode, quiet and single-threaded."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PHIML_REWRITE_")}
    env.update({"TF_CPP_MIN_LOG_LEVEL": "3", "JAX_PLATFORMS": "cpu", "PYTHONHASHSEED": "0"})
    env.setdefault("OMP_NUM_THREADS", "1")
    if backend:
        env[BACKEND_ENV] = backend
    if eager:
        env.update({"JAX_DISABLE_JIT": "1", "PYTORCH_JIT": "0", "TORCH_COMPILE_DISABLE": "1"})
    return env


HOOKS = {"phiml.math._functional": _on_phiml_functional, "phiml.math": _on_phiml_math, "jax": _on_jax,
         "tensorflow": _on_tensorflow, "torch": _on_torch}
