"""Evidence from call sites: what each parameter of a jitted function is actually given.

Whether a parameter is configuration or data decides the fix for a Python `if` on it. Under
`jax.jit` and PhiML's `jit_compile`, a Python bool or int passed explicitly is traced like an array,
but a parameter left at its default stays a Python constant (measured). A flag that callers only
pass as Python literals (`pick(v, True)`) is configuration: the fix is to declare it static, and the
`if` stays; rewriting it into `where`/`cond` broadcasts or fails when its branches differ. A
parameter that receives arrays is data, whose `if` may become a selection.

The evidence is the calls of the *jitted* callable in this module (the decorated def, the name a
wrapper is bound to, `jax.jit(f)(...)`), each bound to parameters, with every argument classified:
a Python literal (also a name bound only to literals, a `range` loop variable, `len(...)`,
`x.shape[0]`), an array (a call of an array library, arithmetic with one), or unknown.

It is read on CPython's `ast` (issue 45): the rules ask it of AstFile.traced (ast_flow.TracedAnalysis:
`callsites`, `roles`), and a fix written on libcst finds a call's libcst node with the module's Locator.
"""
from __future__ import annotations

import ast
import enum
from dataclasses import dataclass, field
from typing import Union

from .ast_jit import positional_params
from .ast_module import AstModule
from .ast_names import dotted
from .ast_resolver import NameResolver
from .static_names import CONFIGURATION_ANNOTATIONS, PYTHON_CALLS

Function = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# Decorators that wrap or describe a function without keeping it where others call it.
_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "wraps", "lru_cache", "cache", "cached_property",
                               "overload", "override", "abstractmethod", "final", "no_type_check"})
_ARRAY_LIBRARIES = ("jax.numpy.", "jax.random.", "jax.lax.", "jax.nn.", "numpy.", "phiml.math.", "torch.", "tensorflow.")
# Calls of those libraries that do not return an array (a shape, a dtype, a Python number).
_NOT_ARRAYS = frozenset({
    "shape", "ndim", "size", "dtype", "result_type", "issubdtype", "spatial", "channel", "batch", "instance", "dual",
    "finfo", "iinfo", "PRNGKey", "key", "Solve", "use", "choose_backend", "concrete_shape", "non_batch",
})
_FLOAT_CONSTRUCTORS = frozenset(
    "ones zeros empty linspace logspace eye identity random_normal random_uniform normal uniform rand randn "
    "truncated_normal randn_like rand_like exp log sqrt sin cos tanh sigmoid softplus".split())
_FLOAT_DTYPES = ("float16", "float32", "float64", "bfloat16", "float_", "double", "half")
_DTYPE_NAMES = frozenset(_FLOAT_DTYPES) | {f"{k}{n}" for k in ("int", "uint") for n in (8, 16, 32, 64)} | {"bool_", "int_"}


class ArgKind(str, enum.Enum):
    PYTHON = "a Python value"
    ARRAY = "an array"
    UNKNOWN = "an expression of unknown kind"


@dataclass(frozen=True)
class Passed:
    """One value a call site passes to a parameter: a Python literal, an array or unknown."""
    kind: ArgKind
    value: object  # PYTHON: the literal itself when known; ARRAY: its dtype kind when known
    call: ast.Call | None
    expr: ast.expr | None
    literal: object = None  # ARRAY: the number it wraps (`jnp.int32(5)`, `math.tensor(5)`), when it wraps one
    shape: str | None = None  # ARRAY: a label of its shape when the call spells it (`jnp.array([1., 2.])`: "(2,)")
    where: str = ""  # a call in another module (`train.py:41`, from the project index): `call` and `expr` are None
    text: str = ""  # the argument as written, for messages (whitespace folded)

    @property
    def none(self) -> bool:
        """The literal `None`: jit flattens it to no leaves, so the function sees `None`, never a tracer."""
        return self.kind is ArgKind.PYTHON and self.value is None and self.text == "None"


@dataclass
class ParamEvidence:
    """What the call sites of a function pass to one parameter, gathered before its role is decided."""
    name: str
    passed: list[Passed] = field(default_factory=list)  # calls that give it a value
    omitted: int = 0  # calls that leave it at its default

    @property
    def only_python(self) -> bool:
        return bool(self.passed) and all(p.kind is ArgKind.PYTHON for p in self.passed)

    @property
    def any_array(self) -> bool:
        return any(p.kind is ArgKind.ARRAY for p in self.passed)

    @property
    def never_passed(self) -> bool:
        return not self.passed and self.omitted > 0


@dataclass
class CallEvidence:
    """The calls of one jitted callable in this module, per parameter."""

    calls: list[ast.Call]
    params: dict[str, ParamEvidence]
    complete: bool  # every use of the callable in this module is a direct call we could bind
    remote: list[str] = field(default_factory=list)  # calls in other modules (`train.py:41`), from the project index
    # Why the callable has callers no call here shows (it escapes): passed, returned, stored, registered by
    # a decorator, public in a module that code outside the run imports. Empty: every use is a visible call.
    escapes: list[str] = field(default_factory=list)

    def escape(self, why: str) -> None:
        self.complete = False
        if why and why not in self.escapes:
            self.escapes.append(why)

    @property
    def open(self) -> str:
        """Why call-site evidence proves nothing about this callable ("" when every use is a visible call)."""
        return "; ".join(self.escapes[:2])


class Role(str, enum.Enum):
    STATIC = "static"  # declared static: static_argnums/static_argnames/auxiliary_args
    DEFAULTED = "defaulted"  # every call in this module leaves it at its default: a constant at trace time
    CONFIG = "configuration"  # a Python value: by its annotation, its default, or every call site
    DATA = "data"  # some call passes an array
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ParamRole:
    """A parameter's role as its call sites and annotation show it, with the evidence the messages quote."""
    role: Role
    why: str  # the evidence, for messages: "annotated `bool`", "passed only as Python values: `True` (line 23)"
    values: tuple = ()  # the Python literals call sites pass (for bounds and messages)
    arrays: tuple = ()  # the dtype kind ("float", "int", "bool", None) of each array call sites pass
    literals: tuple = ()  # the number each of those arrays wraps (`jnp.int32(5)`), None where unknown
    shapes: tuple = ()  # the shape label of each of those arrays (ArgumentKinds.shape_label), None where unknown
    default: object = None  # the literal default, if any
    # Why the calls seen are not all the calls (CallEvidence.open): evidence read from them (values, arrays,
    # defaults left alone) proves nothing about callers elsewhere. "" when every use is a visible call.
    open: str = ""

    @property
    def proven(self) -> bool:
        """What the calls say of the parameter holds for every caller: declared (only roles read from calls
        carry `open`), or every use is a visible call."""
        return not self.open


# -- the tree ------------------------------------------------------------------------------------------
def literal_value(node: ast.AST | None):
    """A Python literal's value (numbers, strings, bool, None, signed numbers, tuples and lists of them, as
    a tuple); raises ValueError otherwise. Narrower than `ast.literal_eval`: no sets, dicts or complex."""
    if type(node) is ast.Constant:
        value = node.value
        if value is None or type(value) in (bool, int, float, str, bytes):
            return value
    elif type(node) is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        inner = literal_value(node.operand)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner if type(node.op) is ast.USub else inner
    elif type(node) in (ast.Tuple, ast.List) and not any(type(e) is ast.Starred for e in node.elts):  # type: ignore[union-attr]
        return tuple(literal_value(e) for e in node.elts)  # type: ignore[union-attr]
    raise ValueError("not a literal")


def arguments(call: ast.Call) -> list[tuple[str | None, ast.expr, str]]:
    """(keyword or None, value, "*" / "**" / "") of each argument, in the order written: a starred
    argument's value is what it unpacks."""
    out = [(None, a.value, "*") if type(a) is ast.Starred else (None, a, "") for a in call.args]  # type: ignore[attr-defined]
    keywords = [(k.arg, k.value, "" if k.arg is not None else "**") for k in call.keywords]
    if keywords and out and (call.keywords[0].lineno, call.keywords[0].col_offset) < (call.args[-1].lineno, call.args[-1].col_offset):
        both = [(a, (a.lineno, a.col_offset)) for a in call.args] + [(k, (k.lineno, k.col_offset)) for k in call.keywords]
        ordered = {id(node): i for i, (node, _) in enumerate(sorted(both, key=lambda pair: pair[1]))}
        pairs = list(zip([*call.args, *call.keywords], [*out, *keywords]))
        return [argument for _, argument in sorted(pairs, key=lambda pair: ordered[id(pair[0])])]
    return out + keywords


def parameters(fn: Function) -> list[ast.arg]:
    """The named parameters (not `*args`, `**kwargs`), in order."""
    return [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]


def default_of(fn: Function, param: ast.arg) -> ast.expr | None:
    """The default value written for `param`, or None."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    for i, p in enumerate(positional):
        if p is param:
            first = len(positional) - len(args.defaults)
            return args.defaults[i - first] if i >= first else None
    for p, default in zip(args.kwonlyargs, args.kw_defaults):
        if p is param:
            return default
    return None


def annotation_name(annotation: ast.expr | None) -> str | None:
    """`bool` for `flag: bool`, `Literal` for `mode: Literal['a', 'b']`, the last name of a dotted one."""
    if annotation is None:
        return None
    if type(annotation) is ast.Subscript:
        annotation = annotation.value
    if type(annotation) is ast.Name:
        return annotation.id
    if type(annotation) is ast.Attribute:
        return annotation.attr
    if type(annotation) is ast.Constant and type(annotation.value) is str:
        return annotation.value
    return None


class ArgumentKinds:
    """Classifies expressions at call sites: Python value, array, or unknown."""

    def __init__(self, module: AstModule) -> None:
        self.module = module
        self.resolver: NameResolver = module.names

    def kind(self, expr: ast.expr, depth: int = 0) -> tuple[ArgKind, object]:
        """(PYTHON, the literal or None) / (ARRAY, its dtype kind: "float", "int", "bool" or None) / (UNKNOWN, None)."""
        try:
            return ArgKind.PYTHON, literal_value(expr)
        except ValueError:
            pass
        if depth > 4:
            return ArgKind.UNKNOWN, None
        if isinstance(expr, ast.Name):
            return self._name(expr, depth)
        if isinstance(expr, ast.Call):
            return self._call(expr, depth)
        if isinstance(expr, ast.BinOp):
            left, right = self.kind(expr.left, depth + 1), self.kind(expr.right, depth + 1)
            kinds = {left[0], right[0]}
            if ArgKind.ARRAY in kinds:
                floating = isinstance(expr.op, ast.Div) or "float" in (left[1], right[1]) \
                    or any(isinstance(v, float) for k, v in (left, right) if k is ArgKind.PYTHON)
                return ArgKind.ARRAY, "float" if floating else None
            return (ArgKind.PYTHON, None) if kinds == {ArgKind.PYTHON} else (ArgKind.UNKNOWN, None)
        if isinstance(expr, ast.UnaryOp):
            return self.kind(expr.operand, depth + 1)[0], None
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape":
            return ArgKind.PYTHON, None  # x.shape[0]
        return ArgKind.UNKNOWN, None

    def _name(self, name: ast.Name, depth: int) -> tuple[ArgKind, object]:
        bindings = self.resolver.reaching(name)
        if not bindings:
            return ArgKind.UNKNOWN, None
        kinds, values = set(), set()
        for binding in bindings:
            kind, value = self._binding(getattr(binding, "node", None), depth)
            kinds.add(kind)
            if kind is not ArgKind.UNKNOWN:
                try:
                    values.add(value)
                except TypeError:
                    values.add(None)
        if kinds == {ArgKind.PYTHON}:
            return ArgKind.PYTHON, values.pop() if len(values) == 1 else None
        if kinds == {ArgKind.ARRAY}:
            return ArgKind.ARRAY, values.pop() if len(values) == 1 else None
        if ArgKind.ARRAY in kinds and kinds <= {ArgKind.ARRAY, ArgKind.PYTHON}:
            return ArgKind.ARRAY, None
        return ArgKind.UNKNOWN, None

    def shape_label(self, expr: ast.expr | None, depth: int = 0) -> str | None:
        """A label that is equal for arrays of equal shape, when the constructing call spells the shape:
        `jnp.array([1., 2.])` and `jnp.ones(2)` are "(2,)"; `math.tensor([1., 2.], spatial('x'))` is
        "(2,) spatial('x')" (PhiML's named dimensions are part of the shape)."""
        if isinstance(expr, ast.Name) and depth < 4:
            labels = set()
            for binding in self.resolver.reaching(expr):
                value = bound_expression(self.resolver, getattr(binding, "node", None))
                labels.add(self.shape_label(value, depth + 1) if value is not None else None)
            return labels.pop() if len(labels) == 1 else None
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, (ast.Name, ast.Attribute)):
            return None
        name = expr.func.attr if isinstance(expr.func, ast.Attribute) else expr.func.id
        positional = [value for keyword, value, _ in arguments(expr) if keyword is None]
        if not positional:
            return None
        try:
            data = literal_value(positional[0])
        except ValueError:
            return None
        if name in ("array", "asarray", "tensor", "constant", "wrap"):
            shape = _nested_shape(data)
            rest = [self.module.text(p) for p in positional[1:]]
            return None if shape is None else " ".join([str(shape), *rest])
        if name in ("zeros", "ones", "empty", "full") and len(positional) <= 2:
            shape = data if isinstance(data, tuple) else (data,)
            return str(shape) if all(isinstance(n, int) and not isinstance(n, bool) for n in shape) else None
        return None

    @staticmethod
    def wrapped_number(expr: ast.expr) -> int | float | None:
        """5 for `jnp.int32(5)` / `math.tensor(5)` / `np.array(5.)`: an array call of one literal number."""
        if isinstance(expr, ast.Call):
            positional = [value for keyword, value, _ in arguments(expr) if keyword is None]
            if len(positional) == 1:
                try:
                    value = literal_value(positional[0])
                except ValueError:
                    return None
                return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        return None

    def _array_dtype(self, call: ast.Call, name: str, depth: int) -> str | None:
        """"float" when an array constructor call certainly makes floating-point values: a float dtype, a
        float literal among its data (also through names), or a constructor whose default is floating
        point (`jnp.ones(3)`); None when that cannot be told."""
        written = arguments(call)
        for keyword, value, _ in written:
            text = dotted(value) or (value.value if isinstance(value, ast.Constant) and type(value.value) in (str, bytes) else "")
            last = str(text).rsplit(".", 1)[-1]
            if keyword == "dtype" or keyword is None and last in _DTYPE_NAMES:
                return "float" if last in _FLOAT_DTYPES or text == "float" else None
        if name in _FLOAT_CONSTRUCTORS:
            return "float"
        for keyword, value, _ in written:
            if keyword is not None:
                continue
            values = [value]
            if isinstance(value, (ast.List, ast.Tuple)):  # stack([...]), tensor([...])
                values = [e.value if isinstance(e, ast.Starred) else e for e in value.elts]
            elif isinstance(value, (ast.ListComp, ast.GeneratorExp)):
                values = [value.elt]
            for element in values:
                kind, found = self.kind(element, depth + 1)
                if kind is ArgKind.PYTHON and _has_float(found) or kind is ArgKind.ARRAY and found == "float":
                    return "float"
        return None

    def _binding(self, target: ast.AST | None, depth: int) -> tuple[ArgKind, object]:
        """The kind of the value a binding gives its name: `n = 3`, `x = jnp.ones(3)`, `for n in range(5)`."""
        if not isinstance(target, ast.Name):
            return ArgKind.UNKNOWN, None
        value = bound_expression(self.resolver, target)
        if value is not None:
            return self.kind(value, depth + 1)
        parent = self.resolver.parent(target)
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.target is target:
            iterable = parent.iter
            if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range":
                return ArgKind.PYTHON, None
            try:
                values = literal_value(iterable)
                if isinstance(values, tuple):  # a representative element when they all have one type
                    return ArgKind.PYTHON, values[0] if values and len({_shape_of(v) for v in values}) == 1 else None
            except ValueError:
                pass
        return ArgKind.UNKNOWN, None

    def _call(self, call: ast.Call, depth: int) -> tuple[ArgKind, object]:
        func = call.func
        if isinstance(func, ast.Name) and func.id in PYTHON_CALLS and not self.resolver.assignments(func):
            return ArgKind.PYTHON, None
        if isinstance(func, (ast.Name, ast.Attribute)):
            last = func.id if isinstance(func, ast.Name) else func.attr
            if last in _NOT_ARRAYS:
                return ArgKind.UNKNOWN, None
            try:
                qualified = self.resolver.qualified_names(func)
            except Exception:
                qualified = set()
            if qualified and all(q.startswith(_ARRAY_LIBRARIES) for q in qualified):
                return ArgKind.ARRAY, self._array_dtype(call, last, depth)
        return ArgKind.UNKNOWN, None


def _shape_of(value) -> str:
    """A literal's type structure: `float`, `tuple[float,float]`... (elements that agree have one)."""
    if isinstance(value, tuple):
        return "tuple[" + ",".join(_shape_of(v) for v in value) + "]"
    return type(value).__name__


def _nested_shape(data) -> tuple | None:
    """(2, 3) for a literal list of two lists of three numbers; None when ragged."""
    if not isinstance(data, tuple):
        return () if isinstance(data, (int, float)) else None
    inner = {_nested_shape(d) for d in data}
    if len(inner) != 1 or None in inner:
        return None if data else (0,)
    first = inner.pop()
    assert first is not None
    return (len(data), *first)


def _has_float(value) -> bool:
    return isinstance(value, float) or isinstance(value, tuple) and any(_has_float(v) for v in value)


class CallSites:
    """Calls of jitted callables in a module, and what they pass (computed per function on demand)."""

    def __init__(self, module: AstModule, project=None, open_module: str = "") -> None:
        self.module = module
        self.resolver: NameResolver = module.names
        self.kinds = ArgumentKinds(module)
        self.project = project  # FileFacts from the project index, or None
        # Why the module's public functions may be called by code not in the run ("" when every caller is seen)
        self.open_module = open_module
        self._cache: dict[int, CallEvidence] = {}

    def of(self, fn: Function, how: str, application: ast.Call | None = None) -> CallEvidence:
        """Evidence for the jitted callable of `fn`: the decorated def itself, or the value of `application`."""
        key = id(application) if application is not None else id(fn)
        if key not in self._cache:
            evidence = self._collect(fn, how, application)
            self._add_remote(fn, evidence)
            self._cache[key] = evidence
        return self._cache[key]

    def roles(self, fn: Function, how: str, application: ast.Call | None, static: frozenset[str] | None) -> dict[str, ParamRole]:
        """What each named parameter of the jitted callable is (param_role), by name."""
        evidence = self.of(fn, how, application)
        return {p.arg: param_role(p.arg, p.annotation, default_of(fn, p), static, evidence) for p in parameters(fn)}

    def _add_remote(self, fn: Function, evidence: CallEvidence) -> None:
        """The calls other modules make of this jitted function (rewriter/project/index.py)."""
        if not self.project or type(fn) not in _DEFS:
            return
        from .ast_jit import qualified_def_name

        name = qualified_def_name(self.resolver, fn)  # type: ignore[arg-type]
        for call in self.project.calls_of(name) if name else ():
            evidence.remote.append(call.where)
            if not call.complete:  # passed on, aliased, `*args`: used where what it is given cannot be seen
                evidence.escape(f"`{name}` is passed on or aliased at {call.where}")
                for param in evidence.params.values():
                    param.passed.append(Passed(ArgKind.UNKNOWN, None, None, None, where=call.where))
                continue
            given = set()
            for arg in call.args:
                if arg.param not in evidence.params:
                    continue
                kind = {"python": ArgKind.PYTHON, "none": ArgKind.PYTHON, "array": ArgKind.ARRAY}.get(arg.kind, ArgKind.UNKNOWN)
                evidence.params[arg.param].passed.append(Passed(kind, arg.value, None, None, where=call.where,
                                                                text="None" if arg.kind == "none" else ""))
                given.add(arg.param)
            for name_, param in evidence.params.items():
                if name_ not in given:
                    param.omitted += 1

    def _collect(self, fn: Function, how: str, application: ast.Call | None) -> CallEvidence:
        evidence = CallEvidence([], {p.arg: ParamEvidence(p.arg) for p in parameters(fn)}, complete=True)
        uses: list[ast.expr | None] = []
        shown = f"`{fn.name}`" if type(fn) in _DEFS else "the function"  # type: ignore[union-attr]
        if how == "decorator" and type(fn) in _DEFS:
            uses = self._reads_of_binding(fn.name, fn)  # type: ignore[union-attr]
            if self._in_class(fn):
                evidence.escape(f"{shown} is a method: its calls through `self` or an instance are not followed")
            for decorator in self._registering(fn):  # type: ignore[arg-type]
                evidence.escape(f"{shown} is handed to the decorator `@{self._code(decorator)}`")
            if self.open_module and not fn.name.startswith("_") and self._at_module_level(fn):  # type: ignore[union-attr]
                evidence.escape(f"{shown} is public: {self.open_module}")
        elif how == "wrapped" and application is not None:
            parent = self.resolver.parent(application)
            if type(parent) is ast.Call and parent.func is application:
                uses = [application]
            else:
                target = _assigned_name(self.resolver, application)
                if target is None:
                    evidence.escape(f"the jitted `{self._code(application)}` is stored or passed where its calls are not seen")
                else:
                    uses = self._reads_of_binding(target.id, target)  # type: ignore[arg-type]
                    shown = f"`{target.id}`"
                    if self.open_module and not target.id.startswith("_") and self._at_module_level(target):
                        evidence.escape(f"{shown} is public: {self.open_module}")
        else:
            evidence.escape("")
        for use in uses:
            if use is None:
                evidence.escape(f"{shown} is bound more than once: some calls may be of another function")
                continue
            parent = self.resolver.parent(use)
            if not (type(parent) is ast.Call and parent.func is use):
                evidence.escape(self._escape_of(use, parent, shown))  # passed on, stored, wrapped again
                continue
            if not self._bind(fn, parent, evidence):  # type: ignore[arg-type]
                evidence.complete = False
        return evidence

    def _escape_of(self, use: ast.expr, parent: ast.AST | None, shown: str) -> str:
        """How a read that is not a call lets the function out: "`step` is passed to `run`"."""
        if isinstance(parent, ast.keyword) or isinstance(parent, ast.Starred) \
                and isinstance(self.resolver.parent(parent), (ast.Call, ast.ClassDef)):
            parent = self.resolver.parent(parent)  # an argument: `run(fn=step)`, `run(*step)`
        if isinstance(parent, ast.Call):
            return f"{shown} is passed to `{self._code(parent.func)}`"
        if isinstance(parent, ast.ClassDef) and not any(d is use for d in parent.decorator_list):
            return f"{shown} is passed to `a call`"  # a base or a class keyword
        if isinstance(parent, ast.Return):
            return f"{shown} is returned"
        if isinstance(parent, (ast.List, ast.Tuple, ast.Set, ast.Starred)) and not _a_subscript(self.resolver, parent):
            return f"{shown} is stored in a container"
        if isinstance(parent, ast.Dict) and not any(k is None and v is use for k, v in zip(parent.keys, parent.values)):
            return f"{shown} is stored in a container"  # (`{**step}` unpacks it)
        if isinstance(parent, (ast.Assign, ast.AugAssign)) or isinstance(parent, ast.AnnAssign) and parent.value is use:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            where = ", ".join(f"`{self._code(t)}`" for t in targets)
            return f"{shown} is assigned to {where}"
        if isinstance(parent, (*_DEFS, ast.ClassDef)) and any(d is use for d in parent.decorator_list):
            return f"{shown} is used as a decorator"
        return f"{shown} is used other than by a call"

    def _registering(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
        """The decorators of `fn` that receive the function object and are no transform the table knows
        (`@register`, `@app.route(...)`): each may keep it and call it where no call here shows."""
        from .apis import Kind
        from .ast_jit import match_transform

        out = []
        for expr in fn.decorator_list:
            if match_transform(self.resolver, expr, tuple(Kind)) is not None:
                continue
            name = dotted(expr.func if type(expr) is ast.Call else expr) or ""  # type: ignore[attr-defined]
            if name.rsplit(".", 1)[-1] in _PLAIN_DECORATORS:
                continue
            out.append(expr)
        return out

    def _at_module_level(self, node: ast.AST) -> bool:
        """Bound outside every function and class: a module's own name, which others import."""
        current = self.resolver.parent(node)
        while current is not None:
            if isinstance(current, (*_FUNCTIONS, ast.ClassDef)):
                return False
            current = self.resolver.parent(current)
        return True

    def _reads_of_binding(self, name: str, binding_node: ast.AST) -> list[ast.expr | None]:
        """Reads of the name bound at `binding_node` that see that binding (flow-sensitively)."""
        scope = self.resolver.scope(binding_node)
        if scope is None:
            return []
        # The binding lives in the scope that contains the def/assignment statement.
        assignment = None
        for candidate in scope.assignments[name] if name in scope.assignments else ():
            if getattr(candidate, "node", None) is binding_node:
                assignment = candidate
                break
        if assignment is None:
            return []
        out: list[ast.expr | None] = []
        for access in assignment.references:
            node = access.node
            if type(node) is not ast.Name:
                continue
            reaching = self.resolver.reaching(node)
            if assignment in reaching and len(reaching) == 1:
                out.append(node)
            elif assignment in reaching:
                out.append(None)  # may be this function or another: a use we cannot attribute
        return out

    def _bind(self, fn: Function, call: ast.Call, evidence: CallEvidence) -> bool:
        """Record what `call` passes to each parameter; False when it cannot be bound (`*args`, `**kw`)."""
        written = arguments(call)
        if any(star for _, _, star in written):
            return False
        evidence.calls.append(call)
        positional = positional_params(fn)
        given: set[str] = set()
        index = 0
        for keyword, value, _ in written:
            if keyword is not None:
                name = keyword
            elif index < len(positional):
                name = positional[index]
                index += 1
            elif fn.args.vararg is not None:
                continue  # lands in `*args`: no named parameter receives it
            else:
                return False
            if name not in evidence.params:
                if fn.args.kwarg is not None:
                    continue  # lands in `**kwargs`
                return False
            kind, found = self.kinds.kind(value)
            literal = self.kinds.wrapped_number(value) if kind is ArgKind.ARRAY else None
            shape = self.kinds.shape_label(value) if kind is ArgKind.ARRAY else None
            evidence.params[name].passed.append(Passed(kind, found, call, value, literal, shape, text=self._code(value, 0)))
            given.add(name)
        for name, param in evidence.params.items():
            if name not in given:
                param.omitted += 1
        return True

    def _in_class(self, fn: Function) -> bool:
        parent = self.resolver.parent(fn)
        while parent is not None and not isinstance(parent, (ast.ClassDef, *_DEFS, ast.Module)):
            parent = self.resolver.parent(parent)
        return type(parent) is ast.ClassDef

    def _code(self, node: ast.AST, limit: int = 30) -> str:
        """The node as written, whitespace folded, cut at `limit` characters (0: whole)."""
        text = " ".join(self.module.text(node).split())
        return _cut(text, limit) if limit else text


def _a_subscript(resolver: NameResolver, node: ast.AST) -> bool:
    """`cache[step, 1]`: the tuple is a subscript's index, not a container."""
    parent = resolver.parent(node)
    return isinstance(node, ast.Tuple) and isinstance(parent, ast.Subscript) and parent.slice is node


def bound_expression(resolver: NameResolver, target: ast.AST | None) -> ast.expr | None:
    """The expression a Name target is bound to: `x = <e>`, `x: T = <e>`, and element-wise `x, y = <a>, <b>`."""
    if not isinstance(target, ast.Name):
        return None
    parent = resolver.parent(target)
    if isinstance(parent, (ast.Tuple, ast.List)):
        assign = resolver.parent(parent)
        if isinstance(assign, ast.Assign) and any(t is parent for t in assign.targets) \
                and isinstance(assign.value, (ast.Tuple, ast.List)) and len(assign.value.elts) == len(parent.elts) \
                and not any(isinstance(e, ast.Starred) for e in (*parent.elts, *assign.value.elts)):
            index = next(i for i, e in enumerate(parent.elts) if e is target)
            return assign.value.elts[index]
        return None
    if isinstance(parent, ast.Assign):
        return parent.value
    if isinstance(parent, ast.AnnAssign) and parent.target is target:
        return parent.value
    return None


def _assigned_name(resolver: NameResolver, value: ast.AST) -> ast.Name | None:
    """`name = <value>` (one plain target): the target Name."""
    parent = resolver.parent(value)
    if type(parent) is ast.Assign and len(parent.targets) == 1 and type(parent.targets[0]) is ast.Name:
        return parent.targets[0]  # type: ignore[return-value]
    if type(parent) is ast.AnnAssign and type(parent.target) is ast.Name:
        return parent.target  # type: ignore[return-value]
    return None


def param_role(name: str, annotation: ast.expr | None, default: ast.expr | None, static: frozenset[str] | None,
               evidence: CallEvidence | None) -> ParamRole:
    """What a parameter of a jitted function is, from its declaration and the calls in this module.

    The evidence text quotes values, not lines: an editor's provisional analysis reuses the roles of
    the whole buffer while lines move (rewriter/lsp/incremental.py)."""
    seen = evidence.params.get(name) if evidence is not None else None
    open_ = evidence.open if evidence is not None else ""
    values = tuple(p.value for p in seen.passed if p.kind is ArgKind.PYTHON) if seen is not None else ()
    if static is not None and name in static:
        return ParamRole(Role.STATIC, "declared static", values if seen is not None and seen.only_python else ())
    if seen is not None and seen.any_array:
        first = next(p for p in seen.passed if p.kind is ArgKind.ARRAY)
        only_arrays = all(p.kind is ArgKind.ARRAY for p in seen.passed)
        arrays = tuple(p.value for p in seen.passed if p.kind is ArgKind.ARRAY) if only_arrays else (None,)
        literals = tuple(p.literal for p in seen.passed) if only_arrays else (None,)
        shapes = tuple(p.shape for p in seen.passed) if only_arrays else (None,)
        shown = f"at {first.where}" if first.where else f"`{_cut(first.text)}`"
        return ParamRole(Role.DATA, f"an array is passed ({shown})", arrays=arrays, literals=literals,
                         shapes=shapes, open=open_)
    assert evidence is not None or seen is None
    if seen is not None and seen.passed and all(p.none for p in seen.passed) \
            and (_is_none(default) or default is None and not seen.omitted):
        remote = [p.where for p in seen.passed if p.where]
        elsewhere = f" (at {_places(remote)})" if remote else ""
        left = " or leaves its default `None`" if seen.omitted else ""
        return ParamRole(Role.DEFAULTED, f"every call passes `None`{elsewhere}{left}, an empty pytree: not traced",
                         (None,), open=open_)
    if seen is not None and seen.never_passed and default is not None and (evidence.calls or evidence.remote):  # type: ignore[union-attr]
        if evidence.remote:  # type: ignore[union-attr]
            return ParamRole(Role.DEFAULTED, f"every call ({len(evidence.calls)} in this file, and at "  # type: ignore[union-attr]
                                             f"{_places(evidence.remote)}) leaves it at its default", open=open_)  # type: ignore[union-attr]
        return ParamRole(Role.DEFAULTED, f"every call in this file ({len(evidence.calls)}) leaves it at its default",  # type: ignore[union-attr]
                         open=open_)
    ann = annotation_name(annotation)
    if ann in CONFIGURATION_ANNOTATIONS:
        return ParamRole(Role.CONFIG, f"annotated `{ann}`", values)
    if seen is not None and seen.only_python:
        distinct = list(dict.fromkeys(repr(p.value) if p.value is not None or p.where else _cut(p.text) for p in seen.passed))
        shown = ", ".join(f"`{text}`" for text in distinct[:3]) + (", ..." if len(distinct) > 3 else "")
        remote = [p.where for p in seen.passed if p.where]
        elsewhere = f" (at {_places(remote)})" if remote else ""
        return ParamRole(Role.CONFIG, f"passed only as Python values: {shown}{elsewhere}", values, open=open_)
    if ann is None and default is not None and not (seen is not None and seen.passed and not seen.only_python):
        try:
            value = literal_value(default)
        except ValueError:
            value = None
        if isinstance(value, (bool, int, float, str)):
            return ParamRole(Role.CONFIG, f"defaults to `{value!r}`", values, open=open_)
    return ParamRole(Role.UNKNOWN, "")


def _is_none(node: ast.expr | None) -> bool:
    return type(node) is ast.Constant and node.value is None  # type: ignore[union-attr]


def _places(wheres: list[str], limit: int = 3) -> str:
    """`train.py:41 and eval.py:12`: the calls in other modules a verdict rests on."""
    distinct = list(dict.fromkeys(wheres))
    shown = distinct[:limit] + ([f"{len(distinct) - limit} more"] if len(distinct) > limit else [])
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _cut(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
