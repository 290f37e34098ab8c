"""The form of a value, as far as merging the branches of an `if` goes: can `where`/`cond` select it?

`where(c, a, b)` broadcasts `a` and `b` to one shape and promotes them to one dtype; `lax.cond` and
the loop primitives demand identical types. Either is a faithful rewrite of a Python `if` only when
the branches give the same shape, dtype and pytree structure. This module proves that, or says why
it cannot: each branch value is given a *form* —

  array(root, dtype)   elementwise in the value `root` (same shape), dtype `same` as root's, or
                       `float` (true division, a float operand or a float function) / `bool`
  reduced(root)        `root` reduced over some axes (PhiML's `math.mean(x)`): it broadcasts back
                       into `root`'s shape, so `x - math.mean(x)` is shaped like `x`
  scalar(dtype)        a 0-d value: a number literal, a Python-number parameter, a full reduction
  tuple(parts)         a Python tuple/list: `where` would stack it into one array
  other(what)          a function, module, class, string or None, a PhiML Shape, an object a class makes
                       (`Solve(...)`, a class of the module, of the project or of the installed packages),
                       or an update of such an object (`copy_with(solve, x0=...)`, `dataclasses.replace`,
                       `obj.with_values(...)`), a parameter PhiML keeps static for not being a tensor
                       (declared `Shape`, `Solve`, `str`, `Callable`): not an array at all
  unknown              anything else

— and `agreement` compares the forms of one result across branches: AGREE (provably the same
shape, dtype and structure), CLASH (provably not arrays, or structures that differ: a selection
is wrong or raises on every call; report only) or DOUBT (cannot tell: an unsafe fix at most).

This module is the algebra (the forms, `agreement`, `merge_dtypes`, the tables of functions); the
forms of expressions are read off the tree by ast_forms.py. There, names are resolved by spelling in
the enclosing function (the values compared are rebuilt expressions, not nodes of the file): a
parameter is its own root, a local bound only to shape-preserving expressions of one root has that
root, and a name imported or defined at module level is a function or module unless it is a known
constant.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .static_names import OBJECT_UPDATES

_LIBRARIES = ("phiml.math.", "jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "numpy.", "torch.", "tensorflow.",
              "jax.random.")
# Elementwise functions: the result has the broadcast shape of the arguments.
# jax's functional updates `x.at[i].set(v)` keep x's shape and dtype (v is cast to it).
_AT_UPDATES = frozenset({"set", "add", "multiply", "divide", "power", "min", "max"})
_ELEMENTWISE = frozenset(
    "abs absolute negative positive sign square clip clamp maximum minimum where real imag conj conjugate round "
    "floor ceil trunc fix rint relu relu6 leaky_relu elu gelu silu softplus sigmoid tanh sin cos tan arcsin arccos "
    "arctan sinh cosh arcsinh arccosh arctanh exp expm1 exp2 log log1p log2 log10 sqrt rsqrt cbrt power pow "
    "stop_gradient logical_and logical_or logical_not logical_xor add subtract multiply divide true_divide "
    "safe_div nan_to_num erf erfc".split()
)
# Elementwise functions whose result is floating point whatever the input.
_FLOATING = frozenset(
    "softplus sigmoid tanh sin cos tan arcsin arccos arctan sinh cosh arcsinh arccosh arctanh exp expm1 exp2 log "
    "log1p log2 log10 sqrt rsqrt cbrt divide true_divide safe_div erf erfc gelu silu elu".split()
)
_BOOLEAN = frozenset("logical_and logical_or logical_not logical_xor isnan isinf isfinite".split())
_LIKE = frozenset("zeros_like ones_like empty_like full_like".split())
# Functions whose result has the shape and dtype of one argument: name -> argument index.
_SHAPE_OF_ARGUMENT = {"solve": 1, "laplace": 0, "stop_gradient": 0, "fourier_laplace": 0, "cumsum": 0,
                      "roll": 0, "flip": 0, "sort": 0}  # jnp.roll / flip / sort keep shape and dtype
# Reductions over every axis (jax/numpy spellings without `axis`): a 0-d result.
_FULL_REDUCTIONS = frozenset("sum mean max min prod std var all any norm amax amin nansum nanmean".split())
_CONSTANTS = frozenset("pi e inf nan euler_gamma PINF NINF".split())
_CONSTRUCTORS = frozenset("zeros ones empty full".split())
_SCALAR_ANNOTATIONS = {"int": "int", "float": "float", "bool": "bool"}
# Dtypes by name, as `astype(jnp.float32)`, `astype("float32")` or `tf.cast(x, tf.float32)` spell them.
_DTYPE_NAMES = frozenset("float16 float32 float64 bfloat16 int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
                         "complex64 complex128".split())
# jaxtyping's dtype annotations (`Float[Array, "n"]`): the dtype they declare.
_JAXTYPING = {"Float": "float", "Float16": "float16", "Float32": "float32", "Float64": "float64",
              "BFloat16": "bfloat16", "Bool": "bool", "Int8": "int8", "Int16": "int16", "Int32": "int32",
              "Int64": "int64", "UInt8": "uint8", "Complex64": "complex64", "Complex128": "complex128"}
# Full reductions whose 0-d result keeps the dtype of any input; the others keep a float's only (an
# integer sum widens to int64 in numpy and torch, an integer mean is float64 in numpy and raises in torch).
_REDUCTIONS_KEEPING = frozenset("max min amax amin".split())
# Parameters PhiML keeps static because they are no tensors (static_names.PHIML_STATIC_ANNOTATIONS, but
# `Extrapolation`, which `math.where` selects), by the last name of their annotation: what they hold.
_NOT_ARRAYS = {"Shape": "a Shape", "Solve": "a `Solve`", "str": "a string", "Callable": "a function"}
_OBJECT_UPDATES = OBJECT_UPDATES
SHAPE = "a Shape"


class Agreement(enum.Enum):
    AGREE = "agree"
    DOUBT = "doubt"
    CLASH = "clash"


@dataclass(frozen=True)
class Form:
    """A value's shape and dtype class as far as the code shows them: what branches must agree on to be merged."""
    kind: str  # array | reduced | scalar | tuple | other | unknown
    root: str | None = None  # array: the value whose shape it has
    dtype: str = "?"  # array: same | float | bool | ?; scalar: int | float | bool | ?
    parts: tuple = ()  # tuple: the elements' forms
    what: str = ""  # other: "a function", "a string", ...; unknown: why

    @property
    def described(self) -> str:
        if self.kind == "array":
            return f"an array shaped like `{self.root}`"
        if self.kind == "scalar":
            return "a number"
        if self.kind == "tuple":
            return f"a tuple of {len(self.parts)}"
        return self.what or "a value of unknown shape"


UNKNOWN = Form("unknown", what="a value of unknown shape")


@dataclass(frozen=True)
class Verdict:
    """Whether two forms agree, and why not where they may not."""
    agreement: Agreement
    reason: str = ""


AGREE = Verdict(Agreement.AGREE)


def forms_of_roles(roles) -> dict[str, Form]:
    """What the calls of a directly jitted function say about its parameters (callsites.ParamRole, proven
    ones only: the calls seen must be all the calls), as forms: a parameter every call passes a Python
    number is a scalar; one every call passes a float array is an array of floats."""
    out = {}
    for name, role in roles.items():
        if not role.proven:
            continue  # the calls seen are not all the calls: what they pass proves nothing
        kinds = {type(v) for v in role.values}
        if role.values and kinds <= {int, float, bool}:
            out[name] = Form("scalar", dtype="float" if float in kinds else "int" if int in kinds else "bool")
        elif role.arrays:
            shapes = set(role.shapes)
            root = f"shape {shapes.pop()}" if len(shapes) == 1 and None not in shapes else name
            out[name] = Form("array", root, "float" if all(d == "float" for d in role.arrays) else "same")
    return out


def _reduction_dtype(name: str, dtype: str) -> str:
    """The dtype of a reduction of values of `dtype` (`_REDUCTIONS_KEEPING`; `all`/`any` make booleans)."""
    if name in ("all", "any"):
        return "bool"
    if name in _REDUCTIONS_KEEPING and dtype != "?":
        return dtype
    return dtype if _float_like(dtype) or dtype.startswith("complex") else "?"


def _spelled_dtype(dtype: str) -> bool:
    """A dtype spelled out (`float32`, `int64`: from `astype` or an annotation), the same for every root."""
    return dtype in _DTYPE_NAMES


def _float_like(dtype: str) -> bool:
    """A floating dtype: `float` (the root's own, when it is floating) or a spelled one (`float32`)."""
    return dtype == "float" or dtype.startswith(("float", "bfloat"))


def _floating(dtype: str) -> str:
    """The dtype of a floating function of a value of `dtype` (`sin`, a true division): a float keeps its
    precision in every backend; anything else becomes some float (`float`)."""
    return dtype if _float_like(dtype) else "float" if dtype in ("same", "bool") else "?"


def merge_dtypes(forms: list[Form], division: bool = False) -> str:
    """The dtype of an elementwise combination of these forms (`a * b`, `jnp.maximum(a, b)`).

    Arrays, reductions and 0-d arrays (a rooted scalar: `jnp.sum(x)`) are strong: they decide the dtype.
    A Python number is weak in jax, numpy (NEP 50), torch, tensorflow and PhiML: an int or bool keeps an
    array's dtype, a float keeps a floating array's (float32 * 0.5 is float32 everywhere) but turns an
    integer array into a float whose precision differs per backend (float32 in jax and torch, float64 in
    numpy; tensorflow raises): `?` unless the array is floating. Two strong dtypes agree only when equal,
    or (as before) `same` and `float` of one root, which is `float`."""
    strong = [f for f in forms if f.kind in ("array", "reduced") or f.kind == "scalar" and f.root]
    weak = [f.dtype for f in forms if f.kind == "scalar" and not f.root]
    if not strong:  # Python arithmetic (or 0-d values of unknown origin)
        if "?" in weak:
            return "?"
        if division or "float" in weak:
            return "float"
        return "int" if "int" in weak else weak[0] if weak else "?"
    labels = {f.dtype for f in strong}
    roots = {f.root for f in strong}
    if len(labels) == 1:
        dtype = labels.pop()
        if len(roots) > 1 and not (_spelled_dtype(dtype) or dtype == "bool"):
            return "?"  # `same`/`float` of two roots: their own dtypes, which may differ
    elif len(roots) == 1 and labels <= {"same", "float", "bool"} and "float" in labels:
        dtype = "float"
    else:
        return "?"
    if dtype == "?":
        return "?"
    for number in weak:
        if number == "?":
            return "?"
        if number == "float":
            dtype = dtype if _float_like(dtype) else "float" if dtype in ("same", "bool") else "?"
        elif number == "int" and dtype == "bool":
            return "?"
    return _floating(dtype) if division else dtype


def _broadcast(forms: list[Form]) -> Form:
    """The form of an elementwise combination: one array root (the others scalars, or reductions of
    that root, which broadcast back into its shape), or unknown. Its dtype is `merge_dtypes`'s to say;
    a combination of scalars keeps the root their 0-d arrays share (a Python number has none)."""
    roots = {f.root for f in forms if f.kind == "array"}
    reduced = {f.root for f in forms if f.kind == "reduced"}
    if any(f.kind not in ("array", "scalar", "reduced") for f in forms) or reduced - roots:
        return UNKNOWN if roots or len(reduced) != 1 else Form("reduced", reduced.pop(), "?")
    if not roots:
        scalar_roots = {f.root for f in forms if f.kind == "scalar" and f.root}
        return Form("scalar", scalar_roots.pop() if len(scalar_roots) == 1 else "?" if scalar_roots else None, "?")
    if len(roots) > 1:
        return Form("unknown", what="a broadcast of " + " and ".join(f"`{r}`" for r in sorted(roots)))
    return Form("array", roots.pop(), "?")


def agreement(forms: list[Form]) -> Verdict:
    """Do these forms of one result, one per branch, give the same shape, dtype and structure?"""
    others = [f for f in forms if f.kind == "other"]
    if others:
        return Verdict(Agreement.CLASH, f"a branch is {others[0].what}, not an array: a selection cannot hold it")
    tuples = [f for f in forms if f.kind == "tuple"]
    if tuples:
        if len(tuples) != len(forms):
            return Verdict(Agreement.CLASH, "one branch gives a tuple and another does not: their structures differ")
        if len({len(t.parts) for t in tuples}) != 1:
            return Verdict(Agreement.CLASH, "the branches give tuples of different lengths")
        worst = AGREE
        for parts in zip(*(t.parts for t in tuples)):
            verdict = agreement(list(parts))
            if verdict.agreement is Agreement.CLASH:
                return verdict
            if verdict.agreement is Agreement.DOUBT and worst.agreement is Agreement.AGREE:
                worst = verdict
        return worst
    reduced = [f for f in forms if f.kind == "reduced"]
    if reduced and not all(f == reduced[0] for f in forms):
        return Verdict(Agreement.DOUBT, "a reduction may not broadcast back to the other branch's shape")
    if reduced:
        return AGREE
    unknown = next((f for f in forms if f.kind == "unknown"), None)
    if unknown is not None:
        return Verdict(Agreement.DOUBT, "nothing proves their shapes and dtypes equal")
    arrays = [f for f in forms if f.kind == "array"]
    if arrays and len(arrays) != len(forms):
        return Verdict(Agreement.DOUBT, "a number would be broadcast to the array's shape")
    if not arrays:
        dtypes = {f.dtype for f in forms}
        if len(dtypes) != 1 or "?" in dtypes:
            return Verdict(Agreement.DOUBT, "the numbers may differ in type")
        dtype = dtypes.pop()
        if len({f.root for f in forms}) > 1 and not (_spelled_dtype(dtype) or dtype == "bool"):
            # a Python number beside a 0-d array (`jnp.sum(x)`), or 0-d arrays of two values: their own dtypes
            return Verdict(Agreement.DOUBT, "the numbers may differ in type")
        return AGREE
    roots = {f.root for f in arrays}
    if len(roots) > 1:
        return Verdict(Agreement.DOUBT, "they are shaped like different values, which a selection would broadcast")
    dtypes = {f.dtype for f in arrays}
    if "?" in dtypes:
        return Verdict(Agreement.DOUBT, "nothing proves their dtypes equal")
    if len(dtypes) > 1:
        root = arrays[0].root
        kinds = [f"`{root}`'s dtype" if d == "same" else _DTYPE_WORDS.get(d, f"`{d}`") for d in sorted(dtypes)]
        told = f"{kinds[0]} in one, {kinds[1]} in the other" if len(kinds) == 2 else f"{', '.join(kinds[:-1])} and {kinds[-1]}"
        return Verdict(Agreement.DOUBT, f"their dtypes may differ ({told})")
    return AGREE


# How a message names a dtype of the forms (ast_forms.py): a kind, or else the spelled dtype itself.
_DTYPE_WORDS = {"int": "integers", "float": "floats", "bool": "booleans"}
