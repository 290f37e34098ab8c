"""The form of a branch value, read on CPython's `ast` (issue 45: one analysis, on `ast`), with the answers,
reasons and `Form`s libcst's reading (forms.Forms, deleted once every rule read `ast`) gave the libcst twin of
the same code. The algebra (`Form`, `agreement`, `merge_dtypes`, the tables) is forms.py's; only the reading
of the tree is here.

Where the trees differ, libcst's shape is read: `True`, `False` and `None` are Names there (`True` is a
bool, never an int: `ast` has it as a Constant whose value is an int too), `1`, `1.5` and `1j` are
Integer, Float and Imaginary; a string written as one literal is a SimpleString and one written as several
(`"a" "b"`) a ConcatenatedString, which `ast` joins into one Constant, so where libcst tells them apart
(`astype("float32")`, a module constant `"a" f"{b}"`) the literals are counted in the module's text
(`reading`); a parameter is an `ast.arg`; `x = y = v` has its targets in one `ast.Assign`; an annotation
is read as its node, as libcst's code of it parses back (annotations.annotation_of). A name's bindings are
met in the order they are written (libcst's answer may depend on the order of a set: see `_bindings`).
tests/test_ast_forms.py holds the answers on every expression of the traced functions of the golden
cases and of the installed phiml and phi, recorded when the two readings agreed on all of them.
"""
from __future__ import annotations

import ast
import io
import tokenize
from typing import TYPE_CHECKING

from .apis import star_target
from .ast_flow import declared_kind
from .ast_jit import literal
from .ast_names import dotted
from .forms import (_AT_UPDATES, _BOOLEAN, _CONSTANTS, _CONSTRUCTORS, _DTYPE_NAMES, _ELEMENTWISE, _FLOATING,
                    _FULL_REDUCTIONS, _JAXTYPING, _LIBRARIES, _LIKE, _NOT_ARRAYS, _OBJECT_UPDATES, _SCALAR_ANNOTATIONS,
                    _SHAPE_OF_ARGUMENT, SHAPE, UNKNOWN, Agreement, Form, _broadcast, _floating, _reduction_dtype,
                    agreement, merge_dtypes)
from .installed import canonical as installed_canonical
from .installed import is_class
from .scope_model import GlobalScope
from .static_names import SHAPE_ATTRIBUTES, SHAPE_CALLS, SHAPE_METHODS

if TYPE_CHECKING:
    from .ast_module import AstModule
    from .ast_resolver import NameResolver

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# libcst's names of the binary operators (`_combine` and `_binary` read them).
_OPERATORS = {ast.Add: "Add", ast.Sub: "Subtract", ast.Mult: "Multiply", ast.MatMult: "MatrixMultiply",
              ast.Div: "Divide", ast.Mod: "Modulo", ast.Pow: "Power", ast.LShift: "LeftShift",
              ast.RShift: "RightShift", ast.BitOr: "BitOr", ast.BitXor: "BitXor", ast.BitAnd: "BitAnd",
              ast.FloorDiv: "FloorDivide"}
_CONTAINERS = (ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)


class Forms:
    """Forms of expressions inside one function (`fn`), for the branches of one statement.

    `classes`: the project's classes the file imports (libcst's resolver holds them; by default the
    resolver's, if it has them); `reading`: the module whose tree the nodes are of, where a string's
    literals are counted (without it, every string is one literal)."""

    def __init__(self, resolver: NameResolver, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
                 anchor: ast.AST, params: dict[str, Form] | None = None, *,
                 classes: frozenset[str] | None = None, reading: AstModule | None = None) -> None:
        self.resolver = resolver
        self.fn = fn
        self.scope = resolver.scope(anchor)
        self.params = _param_names(fn)
        # What is known of parameters from the calls (numbers; float arrays; a helper's arguments):
        # by default a parameter is an array shaped like itself, of its own dtype.
        self.param_forms = params or {}
        self.classes = classes if classes is not None else getattr(resolver, "classes", frozenset())
        self.reading = reading
        self._names: dict[str, Form] = {}

    # -- forms ---------------------------------------------------------------------------
    def of(self, expr: ast.expr, depth: int = 0) -> Form:
        if depth > 12:
            return UNKNOWN
        if isinstance(expr, ast.Constant):
            return _constant(expr.value)
        if isinstance(expr, ast.JoinedStr):
            return Form("other", what="a string")
        if isinstance(expr, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in expr.elts):
                return UNKNOWN
            return Form("tuple", parts=tuple(self.of(e, depth + 1) for e in expr.elts))
        if isinstance(expr, _CONTAINERS):
            return Form("other", what="a container")
        if isinstance(expr, ast.Lambda):
            return Form("other", what="a function")
        if isinstance(expr, ast.Name):
            return self._name(expr.id, depth)
        if isinstance(expr, ast.Attribute):
            return self._attribute(expr, depth)
        if isinstance(expr, ast.UnaryOp):
            inner = self.of(expr.operand, depth + 1)
            if isinstance(expr.op, ast.Not):
                return Form("other", what="a Python bool") if inner.kind in ("scalar", "other") else UNKNOWN
            return inner if inner.kind in ("array", "scalar") else UNKNOWN
        if isinstance(expr, ast.BinOp):
            return self._binary(expr, depth)
        if isinstance(expr, ast.Compare):
            parts = [self.of(expr.left, depth + 1), *(self.of(c, depth + 1) for c in expr.comparators)]
            merged = _broadcast(parts)
            if merged.kind == "array":
                return Form("array", merged.root, "bool")
            return Form("scalar", merged.root, "bool") if merged.kind == "scalar" else UNKNOWN
        if isinstance(expr, ast.IfExp):
            body, orelse = self.of(expr.body, depth + 1), self.of(expr.orelse, depth + 1)
            return body if agreement([body, orelse]).agreement is Agreement.AGREE else UNKNOWN
        if isinstance(expr, ast.Call):
            return self._call(expr, depth)
        if isinstance(expr, ast.Subscript):
            if isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape":
                return Form("scalar", dtype="int")
            return UNKNOWN
        return UNKNOWN

    def _name(self, name: str, depth: int) -> Form:
        if name not in self._names:
            self._names[name] = UNKNOWN  # a binding that reads the name itself sees this while it is resolved
            self._names[name] = self._resolve_name(name, depth)
        return self._names[name]

    def _resolve_name(self, name: str, depth: int) -> Form:
        """The form a name has wherever it is read in the function: every binding of it must agree
        (a fixpoint of two steps for bindings that read the name itself)."""
        bindings = self._bindings(name)
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

    def _bindings(self, name: str) -> list:
        """The function's own bindings of `name` but its parameters', in the order written. (libcst's are
        in the order of a set, by address: where two bindings agree but differ, `y = jnp.all(x)` and
        `y = True`, the form the name takes is the first met's, which may change from run to run there.)"""
        if self.scope is None or name not in self.scope:
            return []
        found = [a for a in self.scope[name]
                 if a.scope is self.scope and not isinstance(getattr(a, "node", None), ast.arg)]
        return sorted(found, key=lambda a: a.created)

    def _declared(self, name: str) -> Form | None:
        """The form a parameter's annotation proves: one PhiML keeps static for not
        being a tensor, a Python number, or an array of the dtype a jaxtyping annotation declares."""
        ann = self._annotation(name)
        last = ann.attr if isinstance(ann, ast.Attribute) else ann.id if isinstance(ann, ast.Name) else None
        if last in _NOT_ARRAYS:
            return Form("other", what=_NOT_ARRAYS[last])
        if isinstance(ann, ast.Name) and ann.id in _SCALAR_ANNOTATIONS and ann.id not in self._shadowed():
            return Form("scalar", dtype=_SCALAR_ANNOTATIONS[ann.id])
        if isinstance(ann, ast.Subscript) and isinstance(ann.value, (ast.Name, ast.Attribute)):
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

    def _annotation(self, name: str) -> ast.expr | None:
        a = self.fn.args
        for param in (*a.posonlyargs, *a.args, *a.kwonlyargs):
            if param.arg == name:
                return param.annotation
        return None

    def condition(self, expr: ast.expr) -> str:
        """Why a condition is provably no array a selection could take ("" when nothing proves that): a
        Shape, a Python container (a display, a parameter declared a list, tuple or dict), an object."""
        if isinstance(expr, ast.Name) and expr.id in self.params and self.scope is not None \
                and not any(a.scope is self.scope and not isinstance(getattr(a, "node", None), ast.arg)
                            for a in (self.scope[expr.id] if expr.id in self.scope else ())):
            ann = self._annotation(expr.id)
            if ann is not None and declared_kind(ann) == "container":
                return f"`{expr.id}` is declared a Python container: its truth is its length, a Python value"
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
        if isinstance(parent, ast.Assign) and any(t is node for t in parent.targets):
            return self.of(parent.value, depth + 1)
        if isinstance(parent, ast.AnnAssign) and parent.target is node and parent.value is not None:
            return self.of(parent.value, depth + 1)
        if isinstance(parent, ast.AugAssign) and parent.target is node and isinstance(node, ast.Name):
            return self._combine(self._name(node.id, depth + 1), self.of(parent.value, depth + 1),
                                 _OPERATORS[type(parent.op)] + "Assign")
        if isinstance(parent, (ast.For, ast.AsyncFor)) and parent.target is node and isinstance(parent.iter, ast.Call) \
                and isinstance(parent.iter.func, ast.Name) and parent.iter.func.id == "range":
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
            if isinstance(node, (*_DEFS, ast.Lambda)):
                forms.add(Form("other", what="a function"))
            elif isinstance(node, ast.ClassDef):
                forms.add(Form("other", what="a class"))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                qualified = {self.resolver.resolved(q) for q in self.resolver.imported.get(name, ())}
                if any(q.rsplit(".", 1)[-1] in _CONSTANTS for q in qualified):
                    forms.add(Form("scalar", dtype="float"))
                else:
                    forms.add(Form("other", what="a module or function"))
            else:
                parent = self.resolver.parent(node) if node is not None else None
                value = parent.value if isinstance(parent, ast.Assign) else None
                constant = value.value if isinstance(value, ast.Constant) else None
                if type(constant) in (int, float):  # (libcst's Integer and Float: not a bool)
                    forms.add(Form("scalar", dtype="int" if type(constant) is int else "float"))
                elif isinstance(constant, (str, bytes)) \
                        or isinstance(value, ast.JoinedStr) and self._literals(value) > 1:
                    forms.add(Form("other", what="a string"))  # (one f-string alone is libcst's FormattedString)
                else:
                    return UNKNOWN
        return forms.pop() if len(forms) == 1 else UNKNOWN

    def _attribute(self, expr: ast.Attribute, depth: int) -> Form:
        qualified = _spelled(self.resolver, expr)
        if qualified:
            if all(q.rsplit(".", 1)[-1] in _CONSTANTS for q in qualified):
                return Form("scalar", dtype="float")
            if all(q.startswith(_LIBRARIES) or q.split(".")[0] in ("math", "functools", "operator") for q in qualified):
                return Form("other", what=f"`{dotted(expr)}`, a function or module")
        base = self.of(expr.value, depth + 1)
        attr = expr.attr
        if base.kind == "array" and attr in ("real", "imag"):
            return Form("array", base.root, "float")
        if attr == "shape" or base.what == SHAPE and attr in SHAPE_ATTRIBUTES:
            return Form("other", what=SHAPE)  # (jax's `.shape` is a tuple of ints: no array either)
        return UNKNOWN

    def _binary(self, expr: ast.BinOp, depth: int) -> Form:
        left, right = self.of(expr.left, depth + 1), self.of(expr.right, depth + 1)
        op = _OPERATORS[type(expr.op)]
        if left.what == SHAPE and right.what == SHAPE:
            return left  # `a & b`, `a + b` of Shapes: a Shape
        if op == "MatrixMultiply":
            return UNKNOWN
        if op == "Power" and not _integer(expr.right):
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

    def _call(self, call: ast.Call, depth: int) -> Form:
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        qualified = _spelled(self.resolver, func) if isinstance(func, (ast.Name, ast.Attribute)) else set()
        library = bool(qualified) and all(q.startswith(_LIBRARIES) for q in qualified)
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        keywords = {k.arg for k in call.keywords if k.arg is not None}
        arguments = len(call.args) + len(call.keywords)  # (libcst's `call.args` holds them all)
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
        if isinstance(func, ast.Attribute) and name in _AT_UPDATES and isinstance(func.value, ast.Subscript) \
                and isinstance(func.value.value, ast.Attribute) and func.value.value.attr == "at" \
                and "mode" not in keywords and "indices_are_sorted" not in keywords:
            base = self.of(func.value.value.value, depth + 1)  # jax's `x.at[i].set(v)`: x's shape and dtype
            return Form("array", base.root, base.dtype) if base.kind == "array" else UNKNOWN
        if isinstance(func, ast.Attribute) and not library and name in _FULL_REDUCTIONS and not arguments:
            base = self.of(func.value, depth + 1)
            if base.kind == "array":
                return self._reduced(name, base)  # x.sum(): every axis
        cast = self._cast(func, name, library, positional, keywords, arguments, depth)
        if cast is not None:
            return cast
        reshaped = self._reshaped(func, name, library, positional, keywords, depth)
        if reshaped is not None:
            return reshaped
        return self._object(func, name, qualified, positional, depth)

    @staticmethod
    def _reduced(name: str, base: Form) -> Form:
        """A reduction over every axis: a 0-d array, of `base`'s dtype where every backend keeps it."""
        if base.kind != "array":
            return Form("scalar", dtype="?")
        return Form("scalar", base.root, _reduction_dtype(name, base.dtype))

    def _cast(self, func, name, library, positional, keywords, arguments, depth) -> Form | None:
        """`x.astype(jnp.float32)`, `tf.cast(x, tf.float32)`, torch's `x.to(torch.float64)`, `x.float()`,
        `x.double()`: `x`'s shape (or 0-d form) with the dtype spelled; None when the call is no cast."""
        if isinstance(func, ast.Attribute) and not library and name in ("astype", "to") and arguments == 1 \
                and positional:
            base, spelled = self.of(func.value, depth + 1), self._dtype_spelled(positional[0])
            if name == "to" and spelled is None:
                return None  # `x.to(device)`
        elif isinstance(func, ast.Attribute) and not library and name in ("float", "double") and not arguments:
            base, spelled = self.of(func.value, depth + 1), "float32" if name == "float" else "float64"
        elif library and name == "cast" and len(positional) == 2 and not keywords:
            base, spelled = self.of(positional[0], depth + 1), self._dtype_spelled(positional[1])
        else:
            return None
        if base.kind == "array" or base.kind == "scalar" and base.root:
            return Form(base.kind, base.root, spelled or "?")
        return UNKNOWN

    def _reshaped(self, func, name, library, positional, keywords, depth) -> Form | None:
        """`x.reshape((3, 2))`, `x.reshape(3, 2)`, `jnp.reshape(x, (3, 2))` with a literal shape: `x`'s dtype,
        and a shape named by the literal and `x`."""
        if name != "reshape" or keywords:
            return None
        if isinstance(func, ast.Attribute) and not library and positional:
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

    def _object(self, func, name: str | None, qualified: set[str], positional: list, depth: int) -> Form:
        """A call that provably makes no array: a Shape, an object of a class (of the module, the project or
        the installed packages), an update of an object that is no array; else unknown."""
        if qualified and qualified & SHAPE_CALLS:
            return Form("other", what=SHAPE)
        if isinstance(func, ast.Attribute):
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
        if isinstance(func, ast.Name) and self.scope is not None and func.id in self.scope:
            bindings = self.scope[func.id]
            if bindings and all(isinstance(getattr(a, "node", None), ast.ClassDef) for a in bindings):
                return Form("other", what=f"a `{func.id}` object")
        return UNKNOWN

    # -- strings, as libcst tells them apart ----------------------------------------------------
    def _dtype_spelled(self, expr: ast.expr) -> str | None:
        """forms._dtype_spelled: libcst reads a string only when it is one literal (a SimpleString)."""
        if isinstance(expr, ast.Constant):
            text = expr.value if type(expr.value) is str and self._literals(expr) == 1 else None
        else:
            text = dotted(expr)
        return _dtype_of(text)

    def _literals(self, string: ast.Constant | ast.JoinedStr) -> int:
        """How many string literals `string` is written as (1 for a node not in the module: a rebuilt value)."""
        reading = self.reading
        if reading is None or self.resolver.parent(string) is None:
            return 1
        return _literals_in(reading.text(string))


def _constant(value) -> Form:
    """The form of a Constant, as libcst has its twin: a Name (`True`, `None`), a number, a string."""
    kind = type(value)
    if kind is bool:
        return Form("scalar", dtype="bool")
    if value is None:
        return Form("other", what="None")
    if kind is int:
        return Form("scalar", dtype="int")
    if kind is float:
        return Form("scalar", dtype="float")
    if kind is complex:
        return Form("scalar", dtype="?")  # `1j * x` is complex whatever `x` is: no dtype the others can agree with
    if kind is str or kind is bytes:
        return Form("other", what="a string")
    return UNKNOWN  # `...`


def _integer(node: ast.expr) -> bool:
    """libcst's Integer: an int literal, not `True`."""
    return isinstance(node, ast.Constant) and type(node.value) is int


def _literals_in(text: str) -> int:
    """The string literals (f-strings too) of `text`, the code of one string expression: those outside
    f-strings' fields (from Python 3.12 an f-string is tokens, and its fields may hold strings)."""
    start, end = getattr(tokenize, "FSTRING_START", None), getattr(tokenize, "FSTRING_END", None)
    count = inside = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == start:
                count += not inside
                inside += 1
            elif token.type == end:
                inside -= 1
            elif token.type == tokenize.STRING and not inside:
                count += 1
    except (tokenize.TokenError, SyntaxError):
        return 2  # (not one literal)
    return count


def _keeps_dims(call: ast.Call) -> bool:
    return any(k.arg == "keepdims" and isinstance(k.value, ast.Constant) and k.value.value is True
               for k in call.keywords)


def _dtype_of(text) -> str | None:
    """forms._dtype_spelled of the text read: `float32` for `jnp.float32` or `"float32"`, torch's
    `torch.float`/`torch.double`; None for anything else."""
    if not isinstance(text, str):
        return None
    root, _, last = text.rpartition(".")
    if root.split(".")[0] == "torch" and last in ("float", "double"):
        return "float32" if last == "float" else "float64"
    if last in ("bool", "bool_") and root:
        return "bool"
    return last if last in _DTYPE_NAMES else None


def _constructed(name: str, positional: list[ast.expr], call: ast.Call) -> Form:
    """`jnp.zeros(())` is a 0-d float, `jnp.zeros((3, 2), jnp.int32)` an array labelled by its literal shape."""
    try:
        shape = literal(positional[0])
    except ValueError:
        return UNKNOWN
    shape = shape if isinstance(shape, tuple) else (shape,)
    if not all(isinstance(n, int) for n in shape):
        return UNKNOWN
    dtype_arg = next((k.value for k in call.keywords if k.arg == "dtype"), None)
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


def _param_names(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    a = fn.args
    out = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    for star in (a.vararg, a.kwarg):
        if star is not None:
            out.add(star.arg)
    return out


def _spelled(resolver: NameResolver, node: ast.expr) -> set[str]:
    """Qualified names a dotted spelling denotes through the file's imports (forms._spelled: expressions
    rebuilt for a rewrite are not nodes of the file, so they are read by spelling, not by scope)."""
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
