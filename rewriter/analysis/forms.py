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

Names are resolved by spelling in the enclosing function (the values compared are rebuilt
expressions, not nodes of the file): a parameter is its own root, a local bound only to
shape-preserving expressions of one root has that root, and a name imported or defined at module
level is a function or module unless it is a known constant.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from ..lazy_libcst import cst

from .apis import star_target
from .installed import canonical as installed_canonical
from .installed import is_class
from .names import NameResolver, dotted
from .scopes import GlobalScope
from .static_names import OBJECT_UPDATES, SHAPE_ATTRIBUTES, SHAPE_CALLS, SHAPE_METHODS
from .annotations import annotation_of
from .ast_flow import declared_kind
from .transforms import literal

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
    agreement: Agreement
    reason: str = ""


AGREE = Verdict(Agreement.AGREE)


class Forms:
    """Forms of expressions inside one function (`fn`), for the branches of one statement."""

    def __init__(self, resolver: NameResolver, fn: cst.FunctionDef | cst.Lambda, anchor: cst.CSTNode,
                 params: dict[str, Form] | None = None) -> None:
        self.resolver = resolver
        self.fn = fn
        self.scope = resolver.scope(anchor)
        self.params = _param_names(fn)
        # What is known of parameters from the calls (numbers; float arrays; a helper's arguments):
        # by default a parameter is an array shaped like itself, of its own dtype.
        self.param_forms = params or {}
        self.classes = resolver.classes  # the project's classes the file imports (facts.FileFacts.classes)
        self._names: dict[str, Form] = {}

    # -- forms ---------------------------------------------------------------------------
    def of(self, expr: cst.BaseExpression, depth: int = 0) -> Form:
        if depth > 12:
            return UNKNOWN
        if isinstance(expr, cst.Integer):
            return Form("scalar", dtype="int")
        if isinstance(expr, (cst.Float, cst.Imaginary)):
            return Form("scalar", dtype="float")
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return Form("other", what="a string")
        if isinstance(expr, (cst.Tuple, cst.List)):
            if any(isinstance(e, cst.StarredElement) for e in expr.elements):
                return UNKNOWN
            return Form("tuple", parts=tuple(self.of(e.value, depth + 1) for e in expr.elements))
        if isinstance(expr, (cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp, cst.GeneratorExp)):
            return Form("other", what="a container")
        if isinstance(expr, cst.Lambda):
            return Form("other", what="a function")
        if isinstance(expr, cst.Name):
            return self._name(expr.value, depth)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, depth)
        if isinstance(expr, cst.UnaryOperation):
            inner = self.of(expr.expression, depth + 1)
            if isinstance(expr.operator, cst.Not):
                return Form("other", what="a Python bool") if inner.kind in ("scalar", "other") else UNKNOWN
            return inner if inner.kind in ("array", "scalar") else UNKNOWN
        if isinstance(expr, cst.BinaryOperation):
            return self._binary(expr, depth)
        if isinstance(expr, cst.Comparison):
            parts = [self.of(expr.left, depth + 1), *(self.of(c.comparator, depth + 1) for c in expr.comparisons)]
            merged = _broadcast(parts)
            if merged.kind == "array":
                return Form("array", merged.root, "bool")
            return Form("scalar", merged.root, "bool") if merged.kind == "scalar" else UNKNOWN
        if isinstance(expr, cst.IfExp):
            body, orelse = self.of(expr.body, depth + 1), self.of(expr.orelse, depth + 1)
            return body if agreement([body, orelse]).agreement is Agreement.AGREE else UNKNOWN
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.Subscript):
            if isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
                return Form("scalar", dtype="int")
            return UNKNOWN
        return UNKNOWN

    def _name(self, name: str, depth: int) -> Form:
        if name in ("True", "False"):
            return Form("scalar", dtype="bool")
        if name == "None":
            return Form("other", what="None")
        if name not in self._names:
            self._names[name] = UNKNOWN  # a binding that reads the name itself sees this while it is resolved
            self._names[name] = self._resolve_name(name, depth)
        return self._names[name]

    def _resolve_name(self, name: str, depth: int) -> Form:
        """The form a name has wherever it is read in the function: every binding of it must agree.

        Bindings that read the name itself (`x = x * 2`) are judged against the others: first without
        them, then again with the name given the form the others agree on (a fixpoint of two steps)."""
        bindings = [a for a in self.scope[name] if a.scope is self.scope and not isinstance(getattr(a, "node", None), cst.Param)] \
            if self.scope is not None and name in self.scope else []
        if name in self.params:
            declared = self._declared(name)
            if declared is not None:
                return declared
            seed = [self.param_forms.get(name, Form("array", name, "same"))]
        elif bindings:
            seed = []
        else:
            return self._outer_name(name)
        forms = [self._binding(a, depth) for a in bindings]
        candidates = seed + [f for f in forms if f.kind != "unknown"]
        if not candidates or agreement(candidates).agreement is not Agreement.AGREE:
            return UNKNOWN
        candidate = candidates[0]
        if all(f.kind != "unknown" for f in forms):
            return candidate
        self._names[name] = candidate
        again = [self._binding(a, depth) for a in bindings]
        return candidate if agreement([candidate, *again]).agreement is Agreement.AGREE else UNKNOWN

    def _declared(self, name: str) -> Form | None:
        """The form a parameter's annotation proves: one PhiML keeps static for not being a tensor
        (`Shape`, `Solve`, `str`, `Callable`: `_NOT_ARRAYS`), a Python number (`float`, `int`, `bool`),
        or an array of the dtype a jaxtyping annotation declares (`Float[Array, "n"]`, `Float32[...]`).
        An annotation is the function's contract with every caller, so it holds where call sites
        cannot (a function that escapes). jaxtyping's shape strings are not read: only the dtype."""
        ann = self._annotation(name)
        last = ann.attr.value if isinstance(ann, cst.Attribute) else ann.value if isinstance(ann, cst.Name) else None
        if last in _NOT_ARRAYS:
            return Form("other", what=_NOT_ARRAYS[last])
        if isinstance(ann, cst.Name) and ann.value in _SCALAR_ANNOTATIONS and ann.value not in self._shadowed():
            return Form("scalar", dtype=_SCALAR_ANNOTATIONS[ann.value])
        if isinstance(ann, cst.Subscript) and isinstance(ann.value, (cst.Name, cst.Attribute)):
            qualified = _spelled(self.resolver, ann.value)
            if qualified and all(q.startswith("jaxtyping.") and q.rsplit(".", 1)[-1] in _JAXTYPING for q in qualified):
                dtype = _JAXTYPING[next(iter(qualified)).rsplit(".", 1)[-1]]
                known = self.param_forms.get(name)
                return Form("array", known.root if known is not None and known.kind == "array" else name, dtype)
        return None

    def _shadowed(self) -> set[str]:
        """Names of builtins the module rebinds (`float = ...`): their annotations prove nothing."""
        scope = self.scope
        for _ in range(64):  # a builtin scope is its own parent
            if scope is None or isinstance(scope, GlobalScope) or scope.parent is scope:
                break
            scope = scope.parent
        if not isinstance(scope, GlobalScope):
            return set(_SCALAR_ANNOTATIONS)
        return {n for n in _SCALAR_ANNOTATIONS if any(a.scope is scope for a in scope.assignments[n])}

    def _annotation(self, name: str) -> cst.BaseExpression | None:
        p = self.fn.params
        for param in (*p.posonly_params, *p.params, *p.kwonly_params):
            if param.name.value == name:
                return param.annotation.annotation if param.annotation is not None else None
        return None

    def condition(self, expr: cst.BaseExpression) -> str:
        """Why a condition is provably no array a selection could take ("" when nothing proves that): a
        Shape, a Python container (a display, a parameter declared a list, tuple or dict), an object:
        its truth is a Python value while tracing, and `where`/`cond` cannot take it."""
        if isinstance(expr, cst.Name) and expr.value in self.params and self.scope is not None \
                and not any(a.scope is self.scope and not isinstance(getattr(a, "node", None), cst.Param)
                            for a in (self.scope[expr.value] if expr.value in self.scope else ())):
            ann = self._annotation(expr.value)
            if ann is not None and declared_kind(annotation_of(self.resolver.wrapper.module.code_for_node(ann))) == "container":
                return f"`{expr.value}` is declared a Python container: its truth is its length, a Python value"
        form = self.of(expr)
        if form.kind == "other":
            return f"the condition is {form.what}: its truth is a Python value, not an array a selection can take"
        if form.kind == "tuple":
            return "the condition is a Python tuple or list: its truth is its length, a Python value"
        return ""

    def _binding(self, assignment, depth: int) -> Form:
        """The form a local binding gives its name: `y = <expr>`, `y += <expr>`, `y: T = <expr>`."""
        node = getattr(assignment, "node", None)
        parent = self.resolver.parent(node) if node is not None else None
        if isinstance(parent, cst.AssignTarget) and parent.target is node:
            assign = self.resolver.parent(parent)
            if isinstance(assign, cst.Assign):
                return self.of(assign.value, depth + 1)
        if isinstance(parent, cst.AnnAssign) and parent.target is node and parent.value is not None:
            return self.of(parent.value, depth + 1)
        if isinstance(parent, cst.AugAssign) and parent.target is node and isinstance(node, cst.Name):
            return self._combine(self._name(node.value, depth + 1), self.of(parent.value, depth + 1),
                                 type(parent.operator).__name__)
        if isinstance(parent, cst.For) and parent.target is node and isinstance(parent.iter, cst.Call) \
                and isinstance(parent.iter.func, cst.Name) and parent.iter.func.value == "range":
            return Form("scalar", dtype="int")  # the index of a `range` loop (a 0-d int in a loop primitive)
        return UNKNOWN

    def _outer_name(self, name: str) -> Form:
        """A name bound outside the function: a module constant, or a function/module/class."""
        scope = self.scope
        assignments = set(scope[name]) if scope is not None and name in scope else set()
        if not assignments:
            return UNKNOWN
        forms = set()
        for assignment in assignments:
            node = getattr(assignment, "node", None)
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                forms.add(Form("other", what="a function"))
            elif isinstance(node, cst.ClassDef):
                forms.add(Form("other", what="a class"))
            elif isinstance(node, (cst.Import, cst.ImportFrom)):
                qualified = {self.resolver.resolved(q) for q in self.resolver.imported.get(name, ())}
                if any(q.rsplit(".", 1)[-1] in _CONSTANTS for q in qualified):
                    forms.add(Form("scalar", dtype="float"))
                else:
                    forms.add(Form("other", what="a module or function"))
            else:
                parent = self.resolver.parent(node) if node is not None else None
                assign = self.resolver.parent(parent) if isinstance(parent, cst.AssignTarget) else None
                value = assign.value if isinstance(assign, cst.Assign) else None
                if isinstance(value, (cst.Integer, cst.Float)):
                    forms.add(Form("scalar", dtype="int" if isinstance(value, cst.Integer) else "float"))
                elif isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
                    forms.add(Form("other", what="a string"))
                else:
                    return UNKNOWN
        return forms.pop() if len(forms) == 1 else UNKNOWN

    def _attribute(self, expr: cst.Attribute, depth: int) -> Form:
        qualified = _spelled(self.resolver, expr)
        if qualified:
            if all(q.rsplit(".", 1)[-1] in _CONSTANTS for q in qualified):
                return Form("scalar", dtype="float")
            if all(q.startswith(_LIBRARIES) or q.split(".")[0] in ("math", "functools", "operator") for q in qualified):
                return Form("other", what=f"`{dotted(expr)}`, a function or module")
        base = self.of(expr.value, depth + 1)
        attr = expr.attr.value
        if base.kind == "array" and attr in ("real", "imag"):
            return Form("array", base.root, "float")
        if attr == "shape" or base.what == SHAPE and attr in SHAPE_ATTRIBUTES:
            return Form("other", what=SHAPE)  # (jax's `.shape` is a tuple of ints: no array either)
        return UNKNOWN

    def _binary(self, expr: cst.BinaryOperation, depth: int) -> Form:
        left, right = self.of(expr.left, depth + 1), self.of(expr.right, depth + 1)
        op = type(expr.operator).__name__
        if left.what == SHAPE and right.what == SHAPE:
            return left  # `a & b`, `a + b` of Shapes: a Shape
        if op == "MatrixMultiply":
            return UNKNOWN
        if op == "Power" and not isinstance(expr.right, cst.Integer):
            out = self._combine(left, right, "Multiply")
            return Form(out.kind, out.root, _floating(out.dtype)) if out.kind == "array" or out.root else out
        return self._combine(left, right, op)

    def _combine(self, left: Form, right: Form, op: str) -> Form:
        merged = _broadcast([left, right])
        division = op in ("Divide", "DivideAssign")
        if merged.kind == "reduced":
            return Form("reduced", merged.root, merge_dtypes([left, right], division))
        if merged.kind not in ("array", "scalar"):
            return merged
        return Form(merged.kind, merged.root, merge_dtypes([left, right], division))

    def _call(self, call: cst.Call, depth: int) -> Form:
        func = call.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        qualified = _spelled(self.resolver, func) if isinstance(func, (cst.Name, cst.Attribute)) else set()
        library = bool(qualified) and all(q.startswith(_LIBRARIES) for q in qualified)
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value for a in call.args if a.keyword is not None}
        if library and name in _CONSTRUCTORS and positional:
            return _constructed(name, positional, call)
        if library and name in _LIKE and positional:
            base = self.of(positional[0], depth + 1)
            if base.kind == "array" and "dtype" not in keywords and (name != "full_like" or len(positional) >= 2):
                return Form("array", base.root, base.dtype)
            return UNKNOWN
        if library and name in _SHAPE_OF_ARGUMENT and len(positional) > _SHAPE_OF_ARGUMENT[name]:
            base = self.of(positional[_SHAPE_OF_ARGUMENT[name]], depth + 1)
            if base.kind == "array":
                return Form("array", base.root, "float" if name in ("solve", "laplace") else base.dtype)
            return UNKNOWN
        if library and name in _ELEMENTWISE and positional and not keywords - {"out"}:
            forms = [self.of(p, depth + 1) for p in positional]
            merged = _broadcast(forms)
            if merged.kind not in ("array", "scalar") or merged.kind == "scalar" and merged.root == "?":
                return UNKNOWN
            if name in _BOOLEAN:
                return Form(merged.kind, merged.root, "bool")
            if name in _FLOATING:
                dtype = _floating(merge_dtypes(forms))
            else:
                dtype = merge_dtypes(forms[1:] if name == "where" else forms)
            return Form(merged.kind, merged.root, dtype)
        if library and name in _FULL_REDUCTIONS and positional:
            base = self.of(positional[0], depth + 1)
            phiml = any(q.startswith("phiml.") for q in qualified)
            if len(positional) == 1 and not keywords and not phiml:
                return self._reduced(name, base)  # jnp.sum(x): every axis
            if base.kind == "array" and (phiml or _keeps_dims(call)):
                # some axes (PhiML: the non-batch ones), or `keepdims=True`: broadcasts back into `root`
                return Form("reduced", base.root, "float" if name in ("mean", "std", "var", "nanmean") else
                            "bool" if name in ("all", "any") else base.dtype)
            return UNKNOWN  # `jnp.sum(x, axis=0)`: a shape of its own
        if isinstance(func, cst.Attribute) and name in _AT_UPDATES and isinstance(func.value, cst.Subscript) \
                and isinstance(func.value.value, cst.Attribute) and func.value.value.attr.value == "at" \
                and "mode" not in keywords and "indices_are_sorted" not in keywords:
            base = self.of(func.value.value.value, depth + 1)  # jax's `x.at[i].set(v)`: x's shape and dtype
            return Form("array", base.root, base.dtype) if base.kind == "array" else UNKNOWN
        if isinstance(func, cst.Attribute) and not library and name in _FULL_REDUCTIONS and not call.args:
            base = self.of(func.value, depth + 1)
            if base.kind == "array":
                return self._reduced(name, base)  # x.sum(): every axis
        cast = self._cast(call, func, name, qualified, library, positional, keywords, depth)
        if cast is not None:
            return cast
        reshaped = self._reshaped(call, func, name, library, positional, keywords, depth)
        if reshaped is not None:
            return reshaped
        return self._object(call, func, name, qualified, positional, depth)

    @staticmethod
    def _reduced(name: str, base: Form) -> Form:
        """A reduction over every axis: a 0-d array, of `base`'s dtype where every backend keeps it."""
        if base.kind != "array":
            return Form("scalar", dtype="?")
        return Form("scalar", base.root, _reduction_dtype(name, base.dtype))

    def _cast(self, call, func, name, qualified, library, positional, keywords, depth) -> Form | None:
        """`x.astype(jnp.float32)`, `tf.cast(x, tf.float32)`, torch's `x.to(torch.float64)`, `x.float()`,
        `x.double()`: `x`'s shape (or 0-d form) with the dtype spelled; None when the call is no cast."""
        if isinstance(func, cst.Attribute) and not library and name in ("astype", "to") and len(call.args) == 1 \
                and positional:
            base, spelled = self.of(func.value, depth + 1), _dtype_spelled(positional[0])
            if name == "to" and spelled is None:
                return None  # `x.to(device)`
        elif isinstance(func, cst.Attribute) and not library and name in ("float", "double") and not call.args:
            base, spelled = self.of(func.value, depth + 1), "float32" if name == "float" else "float64"
        elif library and name == "cast" and len(positional) == 2 and not keywords:
            base, spelled = self.of(positional[0], depth + 1), _dtype_spelled(positional[1])
        else:
            return None
        if base.kind == "array" or base.kind == "scalar" and base.root:
            return Form(base.kind, base.root, spelled or "?")
        return UNKNOWN

    def _reshaped(self, call, func, name, library, positional, keywords, depth) -> Form | None:
        """`x.reshape((3, 2))`, `x.reshape(3, 2)`, `jnp.reshape(x, (3, 2))` with a literal shape: `x`'s dtype,
        and a shape named by the literal and `x` (two reshapes of one value to one shape agree; a reshape
        to another shape, or with `-1`, does not)."""
        if name != "reshape" or keywords:
            return None
        if isinstance(func, cst.Attribute) and not library and positional:
            base, dims = self.of(func.value, depth + 1), positional
        elif library and len(positional) == 2:
            base, dims = self.of(positional[0], depth + 1), positional[1:]
        else:
            return None
        try:
            shape = tuple(literal(d) for d in dims)
        except ValueError:
            return UNKNOWN
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = shape[0]
        if base.kind != "array" or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
            return UNKNOWN
        return Form("array", f"{base.root} reshaped to {shape}", base.dtype)

    def _object(self, call: cst.Call, func, name: str | None, qualified: set[str], positional: list, depth: int) -> Form:
        """A call that provably makes no array: a Shape (`batch(x)`, `shape.without('x')`), an object of a
        class (defined in the module, or imported: one of the project's or the installed packages'), an
        update of an object that is no array (`copy_with(solve, ...)`, `obj.with_values(...)`); else unknown."""
        if qualified and qualified & SHAPE_CALLS:
            return Form("other", what=SHAPE)
        if isinstance(func, cst.Attribute):
            receiver = self.of(func.value, depth + 1)
            if receiver.what == SHAPE and name in SHAPE_METHODS:
                return receiver
            if receiver.kind == "other" and name is not None and (name.startswith("with_") or name == "_replace"):
                return Form("other", what=f"an update of {receiver.what}")
        if qualified and {installed_canonical(q) for q in qualified} & _OBJECT_UPDATES and positional:
            base = self.of(positional[0], depth + 1)
            if base.kind == "other":
                return Form("other", what=f"an update of {base.what}")
        if qualified and all(is_class(q) or q in self.classes for q in qualified):
            return Form("other", what=f"a `{name}` object")
        if isinstance(func, cst.Name) and self.scope is not None and func.value in self.scope:
            bindings = self.scope[func.value]
            if bindings and all(isinstance(getattr(a, "node", None), cst.ClassDef) for a in bindings):
                return Form("other", what=f"a `{func.value}` object")
        return UNKNOWN


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


def _keeps_dims(call: cst.Call) -> bool:
    return any(a.keyword is not None and a.keyword.value == "keepdims" and isinstance(a.value, cst.Name)
               and a.value.value == "True" for a in call.args)


def _dtype_spelled(expr: cst.BaseExpression) -> str | None:
    """`float32` for `jnp.float32`, `np.float32`, `torch.float32`, `tf.float32` or `"float32"`; torch's
    `torch.float`/`torch.double` too. None for anything else (`float` is float64 in numpy, float32 in jax)."""
    text = expr.evaluated_value if isinstance(expr, cst.SimpleString) else dotted(expr)
    if not isinstance(text, str):
        return None
    root, _, last = text.rpartition(".")
    if root.split(".")[0] == "torch" and last in ("float", "double"):
        return "float32" if last == "float" else "float64"
    if last in ("bool", "bool_") and root:
        return "bool"
    return last if last in _DTYPE_NAMES else None


def _constructed(name: str, positional: list[cst.BaseExpression], call: cst.Call) -> Form:
    """`jnp.zeros(())` is a 0-d float, `jnp.zeros((3, 2), jnp.int32)` an array labelled by its literal shape."""
    try:
        shape = literal(positional[0])
    except ValueError:
        return UNKNOWN
    shape = shape if isinstance(shape, tuple) else (shape,)
    if not all(isinstance(n, int) for n in shape):
        return UNKNOWN
    dtype_arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "dtype"), None)
    if dtype_arg is None and len(positional) > (2 if name == "full" else 1):
        dtype_arg = positional[2 if name == "full" else 1]
    if dtype_arg is None:
        dtype = "float" if name != "full" else "?"
    else:
        text = (dotted(dtype_arg) or "").rsplit(".", 1)[-1]
        dtype = "float" if text.startswith(("float", "bfloat")) or text == "float" else \
            "int" if text.startswith(("int", "uint")) or text == "int" else "bool" if text in ("bool", "bool_") else "?"
    if not shape:
        return Form("scalar", dtype=dtype)
    return Form("array", f"shape {shape}", dtype)


def _param_names(fn) -> set[str]:
    p = fn.params
    out = {q.name.value for q in (*p.posonly_params, *p.params, *p.kwonly_params)}
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            out.add(star.name.value)
    return out


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


def _spelled(resolver: NameResolver, node: cst.BaseExpression) -> set[str]:
    """Qualified names a dotted spelling denotes through the file's imports (expressions rebuilt for a
    rewrite are not nodes of the file, so they are read by spelling, not by scope)."""
    text = dotted(node)
    if text is None:
        return set()
    root, _, rest = text.partition(".")
    suffix = "." + rest if rest else ""
    out = {resolver.resolved(q + suffix) for q in resolver.imported.get(root, ())}
    if not out:
        for module in resolver.star_modules:
            target = star_target(module, root, resolver.aliases)
            if target:
                out.add(resolver.resolved(target + suffix))
    return out



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
    if len(dtypes) > 1 or "?" in dtypes:
        return Verdict(Agreement.DOUBT, "their dtypes may differ (integers in one, floats or booleans in the other)")
    return AGREE
