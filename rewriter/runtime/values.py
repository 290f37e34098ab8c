"""Results as plain data: nested dicts and lists of numbers, JSON-able, compared by `verify.values`."""
from __future__ import annotations

MAX_ELEMENTS = 200_000  # larger arrays are recorded as summary statistics


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
    if isinstance(value, (int, float, complex)):  # a Python number: no dtype of its own (weak)
        return {"__array__": np.asarray(value).tolist(), "shape": []}
    if isinstance(value, np.number):
        return {"__array__": np.asarray(value).tolist(), "shape": [], "dtype": str(value.dtype)}
    array = _native_array(value)
    if array is not None:
        try:
            array = np.asarray(array)
        except Exception as e:
            raise NotConcrete(type(e).__name__) from None
        dtype = str(array.dtype)
        if array.dtype.kind == "c":
            array = np.stack([array.real, array.imag], -1)
        if array.dtype == object:
            raise NotConcrete("object array")
        if array.size > MAX_ELEMENTS:
            a = array.astype(float)
            return {"__summary__": [float(a.sum()), float(np.abs(a).sum()), float(a.min()), float(a.max())],
                    "shape": list(array.shape), "dtype": dtype}
        return {"__array__": array.tolist(), "shape": list(array.shape), "dtype": dtype}
    fields = _value_fields(value)
    if fields is not None:  # PhiFlow fields and geometries, dataclasses: their values, by name
        return {"__object__": type(value).__name__, "__dict__": {name: to_plain(getattr(value, name)) for name in fields}}
    if is_function(value):  # compared through what it returns when called (`Recorder` records those calls)
        return {"__callable__": _function_name(value)}
    opaque = _opaque(value)
    if opaque:
        return {"__opaque__": type(value).__name__, "why": opaque}
    return {"__repr__": repr(value)}


def is_function(value) -> bool:
    """Functions, lambdas, bound methods, partials and jit-compiled functions: values whose meaning is
    what they return. Classes and callable objects with state of their own (a torch Module) are not."""
    import functools
    import types

    if isinstance(value, (types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial)):
        return True
    if not callable(value) or isinstance(value, type):
        return False
    top = (type(value).__module__ or "").split(".")[0]
    if top in ("jax", "jaxlib", "tensorflow"):  # jax.jit, tf.function: they keep the function as `__wrapped__`
        return hasattr(value, "__wrapped__")
    return top == "phiml" and type(value).__name__.endswith("Function")  # JitFunction, LinearFunction...


def _function_name(value) -> str:
    inner = getattr(value, "func", None) or getattr(value, "__wrapped__", None) or getattr(value, "f", None) or value
    return getattr(inner, "__qualname__", None) or getattr(inner, "__name__", None) or type(value).__name__


def _opaque(value) -> str:
    """Why a value cannot be compared between two processes ("" if it can be, by its repr)."""
    import types

    if isinstance(value, (types.GeneratorType, types.AsyncGeneratorType, types.CoroutineType)):
        return "a generator yields its values only when its caller iterates it; verify does not consume it"
    if type(value).__repr__ is object.__repr__:
        return f"{type(value).__name__} defines no value of its own to compare (its repr is only its address)"
    text = repr(value)
    if " at 0x" in text or " object at " in text:
        return f"the repr of {type(value).__name__} shows a memory address, which differs in every process"
    return ""


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
