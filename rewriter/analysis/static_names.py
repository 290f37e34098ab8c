"""Names whose results are Python values at trace time, whatever they are read from or called on.

Shared by the traced-value analysis (ast_flow.py, on libcst) and the project summaries
(rewriter/project/summary.py, on CPython's ast), so both read the same calls as static.
"""
from __future__ import annotations

from collections.abc import Sequence

# Static by construction, whatever they are read from.
STATIC_ATTRIBUTES = frozenset(
    "shape ndim dtype rank available size device is_tensor_like backend default_backend batch_rank "
    "spatial_rank names sizes item_names "
    # PhiFlow `Field` properties that ask what kind of geometry it has: isinstance checks, Python bools
    "is_grid is_mesh is_graph is_point_cloud is_centered is_staggered".split()
)
# Concretizations: a tracer raises in them (jax, tensorflow) or is read once (torch.jit.trace), so what
# they return is a Python or NumPy value while tracing: `int(n)`, `x.item()`, `x.tolist()`, `x.numpy()`.
# (ast_flow.py; the ast mirror and the summaries leave them to their general reading, a superset.)
CONCRETIZING_METHODS = frozenset("item tolist numpy".split())
CONCRETIZING_CALLS = frozenset({"builtins.int", "builtins.float", "builtins.bool", "builtins.complex"})
STATIC_METHODS = frozenset("size dim numel get_shape".split())
STATIC_CALLS = frozenset({
    "builtins.len", "builtins.isinstance", "builtins.issubclass", "builtins.type", "builtins.hasattr",
    "builtins.callable", "builtins.id", "builtins.repr", "builtins.str",
    "phiml.math.always_close", "phiml.math.shape", "phiml.math.spatial", "phiml.math.channel", "phiml.math.batch",
    "phiml.math.instance", "phiml.math.dual", "phiml.math.non_batch", "phiml.math.choose_backend",
    "phiml.math.get_format", "phiml.math.is_sparse",
    "jax.numpy.shape", "jax.numpy.ndim", "jax.numpy.size", "jax.numpy.result_type", "jax.numpy.issubdtype",
    "jax.numpy.dtype", "jax.numpy.isscalar", "numpy.shape", "numpy.ndim", "numpy.result_type", "numpy.issubdtype",
    "numpy.dtype", "jax.core.is_concrete", "torch.is_tensor", "tensorflow.is_tensor",
})
# PhiML's functions that give a `Shape` (a Python object while tracing, whatever tensors they read: its
# sizes, names and truth are Python values), the attributes of a Shape that are Shapes, and its methods
# that give one (trace_values.Value.shape): `(batch(a) & batch(b)).without('x')` is a Shape whatever `a` is.
SHAPE_CALLS = frozenset(f"phiml.math.{n}" for n in "shape batch spatial channel instance dual non_batch non_spatial "
                                                    "non_channel non_instance non_dual primal non_primal merge_shapes "
                                                    "concat_shapes".split())
SHAPE_ATTRIBUTES = frozenset("shape batch non_batch spatial non_spatial instance non_instance channel non_channel dual "
                             "non_dual primal non_primal non_singleton singleton non_uniform_shape".split())
SHAPE_METHODS = frozenset("without only after_gather after_pad with_size with_sizes with_dim_size without_sizes replace "
                          "replace_selection as_batch as_spatial as_instance as_channel as_dual as_type".split())
STATIC_CALLS = STATIC_CALLS | SHAPE_CALLS
# Annotations (last names) of a Python list, tuple, set or dict: a parameter declared so is one (its length
# and truth are Python values while tracing, whatever it holds: trace_values.Value.container), as is one
# declared `Optional[...]` or `... | None` of one.
CONTAINER_ANNOTATIONS = frozenset("list tuple dict set frozenset List Tuple Dict Set FrozenSet Sequence Mapping "
                                  "MutableSequence MutableMapping AbstractSet".split())
# Their builtins by bare name (`isinstance`, `len`): static where no binding of the module shadows them.
STATIC_BUILTINS = frozenset(q.split(".", 1)[1] for q in STATIC_CALLS if q.startswith("builtins."))
# Functions that answer questions about dtypes, ranks and shapes, by name (jax's private helpers
# included): their results are Python values whatever their arguments.
STATIC_FUNCTION_NAMES = frozenset(
    "result_type issubdtype iscomplexobj isrealobj isscalar dtype _dtype canonicalize_dtype to_inexact_dtype "
    "to_numeric_dtype check_and_canonicalize_user_dtype check_user_dtype_supported is_weakly_typed finfo iinfo "
    "promote_types is_constant_dim is_constant_shape canonicalize_axis is_concrete isinstance issubclass "
    "ndim _ndim shape _shape typeof get_aval tree_structure structure axis_size".split()
)
# jax functions whose arguments are sizes or shapes: a parameter passed to one must be static (PML204).
JAX_SHAPES = frozenset(f"jax.numpy.{n}" for n in "zeros ones full empty arange linspace eye identity tri reshape "
                                                 "broadcast_to tile repeat".split())
JAX_SHAPE_NAMES = frozenset(q.rsplit(".", 1)[1] for q in JAX_SHAPES)  # their last names
# Their arguments that are data, not sizes, by last name: (positions, keywords). jit traces these
# (`jnp.full((3,), x)`, `jnp.linspace(0, x, 5)`, `jnp.eye(3, k=x)` run with `x` traced; jax 0.10.2),
# and `repeat`'s counts too once `total_repeat_length=` gives the size.
_SHAPE_DATA: dict[str, tuple[tuple[int, ...], frozenset[str]]] = {
    "full": ((1,), frozenset({"fill_value"})),
    "linspace": ((0, 1), frozenset({"start", "stop"})),
    "eye": ((2,), frozenset({"k"})),
    "tri": ((2,), frozenset({"k"})),
    "reshape": ((0,), frozenset({"a"})),
    "broadcast_to": ((0,), frozenset({"array"})),
    "tile": ((0,), frozenset({"A"})),
    "repeat": ((0,), frozenset({"a"})),
}
_REPEAT_SIZED = ((0, 1), frozenset({"a", "repeats"}))
_NOT_SIZES = frozenset({"dtype", "device"})


def size_arguments(function: str, arguments: Sequence[tuple[bool, str | None]]) -> list[bool]:
    """Which arguments of a call of the jax shape function `function` (its last name, one of JAX_SHAPES)
    must be Python values: its sizes. `arguments`: each as (whether it is a `*`/`**` argument, its
    keyword or None), in the call's order. A `*` argument, and a positional one after it, whose position
    cannot be told, counts as a size; so does a `**` argument."""
    keywords = frozenset(keyword for _, keyword in arguments if keyword is not None)
    positions, names = _REPEAT_SIZED if function == "repeat" and "total_repeat_length" in keywords \
        else _SHAPE_DATA.get(function, ((), frozenset()))
    out = []
    position: int | None = 0  # among the positional arguments; None from a `*`/`**` argument on
    for starred, keyword in arguments:
        if starred:
            position = None
        if keyword is not None:
            out.append(keyword not in _NOT_SIZES and keyword not in names)
        else:
            out.append(position is None or position not in positions)
            position = None if position is None else position + 1
    return out


# Attributes of a traced tensor that are tensors themselves. Any other attribute of a traced value
# may be a static field of a dataclass / pytree: UNKNOWN.
TENSOR_ATTRIBUTES = frozenset("all any T mT real imag values vector mean sum max min prod abs sign at data grad".split())


# Parameters a jit transform keeps static by their declaration (ast_flow.TracedAnalysis._direct_params
# decides with these, and the project index with `static_by_declaration`).
DTYPE_ANNOTATIONS = frozenset({"DTypeLike", "DType"})
PHIML_STATIC_ANNOTATIONS = frozenset({"str", "Shape", "Solve", "Callable", "Extrapolation"})  # kept auxiliary by PhiML
PYTHON_SCALAR_ANNOTATIONS = frozenset({"int", "bool", "float", "str"})  # tf.function and filter_jit key traces on them
# Builtins whose result callsites.ArgumentKinds takes for a Python value (`int(n)`, `len(xs)`).
PYTHON_CALLS = frozenset({"int", "float", "bool", "len", "str", "round", "abs", "min", "max", "sum"})
# Annotations (last names) that make a jitted function's parameter configuration (callsites.param_role).
CONFIGURATION_ANNOTATIONS = frozenset({"bool", "int", "float", "str", "Literal"})


def is_dtype_parameter(name: str, annotation: str | None) -> bool:
    """A dtype cannot be traced: jit requires it static (or None)."""
    return name == "dtype" or name.endswith("_dtype") or annotation in DTYPE_ANNOTATIONS


def static_by_declaration(name: str, annotation: str | None, framework: str) -> bool:
    """A parameter the transform keeps a Python value whatever the call passes, by its name or annotation
    (tf.function and filter_jit, which key traces on Python values, are decided per call instead)."""
    return is_dtype_parameter(name, annotation) or framework == "phiml" and annotation in PHIML_STATIC_ANNOTATIONS


# Methods that store their argument in the container they are called on (`xs.append(v)`).
STORING = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft", "put"})
# jax's loop and branch primitives: every parameter of a function handed to one is a tracer.
JAX_PRIMITIVES = frozenset(f"jax.lax.{n}" for n in "scan fori_loop while_loop cond switch map associative_scan".split())
# Where jax's staged operations live: under jit a call of one is a tracer even for constant arguments.
JAX_STAGED = ("jax.numpy.", "jax.lax.", "jax.random.", "jax.nn.", "jax.scipy.")
# Python lists of a pytree's parts: their length is the pytree's structure, never traced.
PYTREE_LISTS = frozenset(f"jax.{m}.{n}" for m in ("tree_util", "tree") for n in (
    "tree_leaves", "tree_leaves_with_path", "leaves", "leaves_with_path")) | {"equinox.tree_flatten_one_level"}
# Modules whose functions cannot produce a tracer (NumPy, jax's tracing machinery).
STATIC_MODULES = ("numpy.", "jax._src.interpreters.", "jax._src.linear_util.", "jax._src.api_util.",
                  "jax.extend.linear_util.", "jax.api_util.", "jax.interpreters.")
# Functions that return their first argument with some attributes replaced: an object of its class
# (forms.py: never an array when that argument is none).
OBJECT_UPDATES = frozenset({"phiml.math.copy_with", "phiml.math.replace", "phiml.dataclasses.replace",
                            "dataclasses.replace", "copy.copy", "copy.deepcopy"})
# Calls that return their pytree argument (at this position) with some leaves replaced: its class,
# and so its Python-valued fields, are kept (`eqx.tree_at(where, saveat, ...)` is still a SaveAt).
STRUCTURE_KEEPING = {"equinox.tree_at": 1, "jax.tree_util.tree_map": 1, "jax.tree.map": 1}
