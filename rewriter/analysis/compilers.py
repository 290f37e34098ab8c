"""What each compiler does with Python control flow, Python scalars and conversions of its tracers.

The rules about traced values (PML201-PML206) ask here, never of a framework name: "jit" means six
different things. `jax.jit` traces and raises on a Python `if` over a tracer; PhiML's `jit_compile`
is `jax.jit`, `torch.jit.trace` or `tf.function` depending on the backend; `tf.function` converts
tensor `if`/`while` with autograph (and raises without it); `torch.compile` breaks the graph (slower,
never wrong); `torch.jit.trace` silently keeps the example's branch; `torch.jit.script` compiles
Python control flow on `int`/`bool`/`Tensor` values. docs/compilers.md is the table, and
golden/compilers/ executes each row.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class ControlFlow(str, enum.Enum):
    """What a Python `if`/`for`/`while` on a traced value does under the compiler."""

    RAISES = "raises"  # the trace fails (jax.jit; tf.function without autograph)
    BAKES = "bakes"  # the trace keeps the branch or count of the example, silently (torch.jit.trace)
    PER_BACKEND = "per-backend"  # PhiML: raises on jax and tensorflow, bakes on torch, nothing on numpy
    CONVERTS = "converts"  # rewritten into graph control flow (tf.function with autograph)
    GRAPH_BREAK = "graph-break"  # the graph is split there: slower, the same values (torch.compile)
    COMPILES = "compiles"  # compiled as control flow (torch.jit.script)


class Scalars(str, enum.Enum):
    """What a Python `int`/`bool`/`float` argument the caller passes becomes."""

    TRACED = "traced"  # an abstract value: a count or flag from it fails (jax.jit, PhiML jit_compile)
    KEYED = "keyed"  # a Python value, one trace or compilation per distinct value (tf.function, torch.compile, filter_jit)
    TYPED = "typed"  # a value of its declared type in compiled code (torch.jit.script)


@dataclass(frozen=True)
class Compiler:
    """How one compiler treats Python control flow and scalar reads of a tracer: fails, bakes a value in, or works."""
    api: str
    control_flow: ControlFlow
    scalars: Scalars
    # int(x) / bool(x) / x.item() of a tracer: raises (what follows sees a Python value, if it runs at
    # all), bakes (reads the example's value: what follows is baked in too), or works (compiled, or a
    # graph break)
    concretization: str
    consequence: str  # what a Python `if`/loop on a tracer does, for messages; `{what}`: "branch" / "trip count"
    # A Python `for` over a static count (`range(500)`): copied into the trace once per iteration (every
    # tracing compiler), or compiled as one loop (torch.jit.script); and how to keep it one loop (PML206).
    unrolls_loops: bool = True
    loop_hint: str = ""

    @property
    def fails_on_control_flow(self) -> bool:
        """A Python `if`/loop on a tracer fails or silently computes one branch: the rules rewrite or report it."""
        return self.control_flow in (ControlFlow.RAISES, ControlFlow.BAKES, ControlFlow.PER_BACKEND)

    @property
    def traces_scalars(self) -> bool:
        """A count or flag passed as a Python value is traced, so it must be declared static (PML204)."""
        return self.scalars is Scalars.TRACED


_PHIML = "fails on jax, bakes in one {what} on torch"
# autograph converts a `for` over `tf.range(n)` into one `tf.while_loop`; over a Python `range` it runs in Python.
_TF_LOOP = ("iterate over `tf.range(...)`: autograph compiles that as one `tf.while_loop` (the loop's values must "
            "keep their shapes and dtypes, and a list it appends to becomes a `tf.TensorArray`)")
# Dynamo and torch.jit.trace run the Python loop and record every iteration; torch has no public loop primitive.
_TORCH_LOOP = "compile the loop's step and loop outside, unless the function runs often enough to repay the compile"
_TABLE = {c.api: c for c in (
    Compiler("jax.jit", ControlFlow.RAISES, Scalars.TRACED, "raises", "raises under `jax.jit`"),
    Compiler("equinox.filter_jit", ControlFlow.RAISES, Scalars.KEYED, "raises", "raises under `equinox.filter_jit`"),
    Compiler("phiml.math.jit_compile", ControlFlow.PER_BACKEND, Scalars.TRACED, "per-backend", _PHIML),
    Compiler("phiml.math.jit_compile_linear", ControlFlow.PER_BACKEND, Scalars.TRACED, "per-backend", _PHIML),
    Compiler("tensorflow.function", ControlFlow.CONVERTS, Scalars.KEYED, "raises",
             "raises in `tf.function` without autograph", loop_hint=_TF_LOOP),
    Compiler("torch.compile", ControlFlow.GRAPH_BREAK, Scalars.KEYED, "works",
             "breaks the graph under `torch.compile` (slower, not wrong)", loop_hint=_TORCH_LOOP),
    Compiler("torch.jit.trace", ControlFlow.BAKES, Scalars.KEYED, "bakes",
             "bakes in the example's {what} under `torch.jit.trace`", loop_hint=_TORCH_LOOP),
    Compiler("torch.jit.script", ControlFlow.COMPILES, Scalars.TYPED, "works",
             "is compiled by `torch.jit.script`", unrolls_loops=False),
)}
# tf.function(autograph=False): Python control flow on a tensor raises.
_TF_WITHOUT_AUTOGRAPH = Compiler("tensorflow.function", ControlFlow.RAISES, Scalars.KEYED, "raises",
                                 "raises in `tf.function` without autograph", loop_hint="write it as a `tf.while_loop`, or trace the loop's step and loop outside")
# tf.function(autograph=<not a literal>): converted or not, it cannot be told; its default (on) is assumed.
_TF_AUTOGRAPH_UNREAD = Compiler("tensorflow.function", ControlFlow.CONVERTS, Scalars.KEYED, "raises",
                                "raises in `tf.function` unless autograph is on", loop_hint=_TF_LOOP)
# A jit transform the table does not describe: assume the strictest tracer.
_UNKNOWN = Compiler("", ControlFlow.RAISES, Scalars.TRACED, "raises", "fails under jit")


def compiler(api: str, autograph: bool | None = True) -> Compiler:
    """The semantics of the jit transform `api` (canonical name); `autograph`: tf.function's keyword
    as written (None: not a literal, so it cannot be told: treated as on, its default)."""
    if api == "tensorflow.function" and autograph is False:
        return _TF_WITHOUT_AUTOGRAPH
    return _TABLE.get(api, _UNKNOWN)


def of(transform) -> Compiler:
    """The semantics of a configured transform (analysis.transforms.Transform)."""
    from .ast_names import literal_value

    autograph = True
    value = transform.keyword("autograph") if transform.api.name == "tensorflow.function" else None
    if value is not None:  # (an `ast` node: ast_jit reads the transforms)
        try:
            autograph = literal_value(value)
        except (ValueError, TypeError, RecursionError):
            autograph = None  # not a literal
    return _TF_AUTOGRAPH_UNREAD if autograph is None else compiler(transform.api.name, autograph)


def table() -> list[Compiler]:
    """Every compiler described, in the order of docs/compilers.md."""
    return [*_TABLE.values(), _TF_WITHOUT_AUTOGRAPH]


# The oldest release of each library whose API the fixes' code was checked against (every keyword and
# form the emitters and lifts write exists there: PhiFlow's `@jit_compile(auxiliary_args=...)` decorator
# form, `forget_traces` and `solve_linear(f, y, solve, *f_args)` from 2.3; jax's `static_argnames` from
# 0.2.13 and `lax.cond(pred, true_fun, false_fun, *operands)` from 0.2.26; read in each release's source).
# A project that may run an older one gets the fix as unsafe, with the evidence (Codemod.report).
FIXES_NEED = {"phi": "2.3.0", "phiml": "1.0.0", "jax": "0.2.26"}
LIBRARY_NAMES = {"phi": "PhiFlow", "phiml": "PhiML", "jax": "jax", "equinox": "equinox", "diffrax": "diffrax"}
