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
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

import libcst as cst

from .names import NameResolver, dotted
from .static_names import CONFIGURATION_ANNOTATIONS, PYTHON_CALLS
from .structure import ancestors
from .transforms import positional_params

# Decorators that wrap or describe a function without keeping it where others call it.
_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "wraps", "lru_cache", "cache", "cached_property",
                               "overload", "override", "abstractmethod", "final", "no_type_check"})
_ARRAY_LIBRARIES = ("jax.numpy.", "jax.random.", "jax.lax.", "jax.nn.", "numpy.", "phiml.math.", "torch.", "tensorflow.")
# Calls of those libraries that do not return an array (a shape, a dtype, a Python number).
_NOT_ARRAYS = frozenset({
    "shape", "ndim", "size", "dtype", "result_type", "issubdtype", "spatial", "channel", "batch", "instance", "dual",
    "finfo", "iinfo", "PRNGKey", "key", "Solve", "use", "choose_backend", "concrete_shape", "non_batch",
})


class ArgKind(str, enum.Enum):
    PYTHON = "a Python value"
    ARRAY = "an array"
    UNKNOWN = "an expression of unknown kind"


@dataclass(frozen=True)
class Passed:
    kind: ArgKind
    value: object  # PYTHON: the literal itself when known; ARRAY: its dtype kind when known
    call: cst.Call
    expr: cst.BaseExpression
    literal: object = None  # ARRAY: the number it wraps (`jnp.int32(5)`, `math.tensor(5)`), when it wraps one
    shape: str | None = None  # ARRAY: a label of its shape when the call spells it (`jnp.array([1., 2.])`: "(2,)")
    where: str = ""  # a call in another module (`train.py:41`, from the project index): `call` and `expr` are None


@dataclass
class ParamEvidence:
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

    calls: list[cst.Call]
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


def _literal_value(node: cst.BaseExpression):
    """A Python literal's value (numbers, strings, bool, None, tuples of them); raises ValueError otherwise."""
    if isinstance(node, cst.Integer):
        return int(node.value.replace("_", ""), 0)
    if isinstance(node, cst.Float):
        return float(node.value.replace("_", ""))
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        if isinstance(value, (str, bytes)):
            return value
    if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = _literal_value(node.expression)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner if isinstance(node.operator, cst.Minus) else inner
    if isinstance(node, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
        return tuple(_literal_value(e.value) for e in node.elements)
    raise ValueError("not a literal")


class ArgumentKinds:
    """Classifies expressions at call sites: Python value, array, or unknown."""

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def kind(self, expr: cst.BaseExpression, depth: int = 0) -> tuple[ArgKind, object]:
        """(PYTHON, the literal or None) / (ARRAY, its dtype kind: "float", "int", "bool" or None) / (UNKNOWN, None)."""
        try:
            return ArgKind.PYTHON, _literal_value(expr)
        except ValueError:
            pass
        if depth > 4:
            return ArgKind.UNKNOWN, None
        if isinstance(expr, cst.Name):
            return self._name(expr, depth)
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.BinaryOperation):
            left, right = self.kind(expr.left, depth + 1), self.kind(expr.right, depth + 1)
            kinds = {left[0], right[0]}
            if ArgKind.ARRAY in kinds:
                floating = isinstance(expr.operator, cst.Divide) or "float" in (left[1], right[1]) \
                    or any(isinstance(v, float) for k, v in (left, right) if k is ArgKind.PYTHON)
                return ArgKind.ARRAY, "float" if floating else None
            return (ArgKind.PYTHON, None) if kinds == {ArgKind.PYTHON} else (ArgKind.UNKNOWN, None)
        if isinstance(expr, cst.UnaryOperation):
            return self.kind(expr.expression, depth + 1)[0], None
        if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) and expr.value.attr.value == "shape":
            return ArgKind.PYTHON, None  # x.shape[0]
        return ArgKind.UNKNOWN, None

    def _name(self, name: cst.Name, depth: int) -> tuple[ArgKind, object]:
        bindings = self.resolver.reaching(name)
        if not bindings:
            return ArgKind.UNKNOWN, None
        kinds, values = set(), set()
        for binding in bindings:
            node = getattr(binding, "node", None)
            kind, value = self._binding(node, depth)
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

    def shape_label(self, expr: cst.BaseExpression, depth: int = 0) -> str | None:
        """A label that is equal for arrays of equal shape, when the constructing call spells the shape:
        `jnp.array([1., 2.])` and `jnp.ones(2)` are "(2,)"; `math.tensor([1., 2.], spatial('x'))` is
        "(2,) spatial('x')" (PhiML's named dimensions are part of the shape)."""
        if isinstance(expr, cst.Name) and depth < 4:
            labels = set()
            for binding in self.resolver.reaching(expr):
                value = bound_expression(self.resolver, getattr(binding, "node", None))
                labels.add(self.shape_label(value, depth + 1) if value is not None else None)
            return labels.pop() if len(labels) == 1 else None
        if not isinstance(expr, cst.Call) or not isinstance(expr.func, (cst.Name, cst.Attribute)):
            return None
        name = expr.func.attr.value if isinstance(expr.func, cst.Attribute) else expr.func.value
        positional = [a.value for a in expr.args if a.keyword is None]
        if not positional:
            return None
        try:
            data = _literal_value(positional[0])
        except ValueError:
            return None
        if name in ("array", "asarray", "tensor", "constant", "wrap"):
            shape = _nested_shape(data)
            rest = [cst.Module([]).code_for_node(p) for p in positional[1:]]
            return None if shape is None else " ".join([str(shape), *rest])
        if name in ("zeros", "ones", "empty", "full") and len(positional) <= 2:
            shape = data if isinstance(data, tuple) else (data,)
            return str(shape) if all(isinstance(n, int) and not isinstance(n, bool) for n in shape) else None
        return None

    def wrapped_number(self, expr: cst.BaseExpression) -> int | float | None:
        """5 for `jnp.int32(5)` / `math.tensor(5)` / `np.array(5.)`: an array call of one literal number."""
        if isinstance(expr, cst.Call):
            positional = [a.value for a in expr.args if a.keyword is None]
            if len(positional) == 1:
                try:
                    value = _literal_value(positional[0])
                except ValueError:
                    return None
                return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        return None

    def _array_dtype(self, call: cst.Call, name: str, depth: int) -> str | None:
        """"float" when an array constructor call certainly makes floating-point values: a float dtype, a
        float literal among its data (also through names), or a constructor whose default is floating
        point (`jnp.ones(3)`); None when that cannot be told."""
        for arg in call.args:
            text = dotted(arg.value) or (arg.value.evaluated_value if isinstance(arg.value, cst.SimpleString) else "")
            last = str(text).rsplit(".", 1)[-1]
            if arg.keyword is not None and arg.keyword.value == "dtype" or arg.keyword is None and last in _DTYPE_NAMES:
                return "float" if last in _FLOAT_DTYPES or text == "float" else None
        if name in _FLOAT_CONSTRUCTORS:
            return "float"
        for arg in call.args:
            if arg.keyword is not None:
                continue
            values = [arg.value]
            if isinstance(arg.value, (cst.List, cst.Tuple)):  # stack([...]), tensor([...])
                values = [e.value for e in arg.value.elements]
            elif isinstance(arg.value, (cst.ListComp, cst.GeneratorExp)):
                values = [arg.value.elt]
            for value in values:
                kind, found = self.kind(value, depth + 1)
                if kind is ArgKind.PYTHON and _has_float(found) or kind is ArgKind.ARRAY and found == "float":
                    return "float"
        return None

    def _binding(self, target: cst.CSTNode | None, depth: int) -> tuple[ArgKind, object]:
        """The kind of the value a binding gives its name: `n = 3`, `x = jnp.ones(3)`, `for n in range(5)`."""
        if not isinstance(target, cst.Name):
            return ArgKind.UNKNOWN, None
        value = bound_expression(self.resolver, target)
        if value is not None:
            return self.kind(value, depth + 1)
        parent = self.resolver.parent(target)
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is target:
            iterable = parent.iter
            if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range":
                return ArgKind.PYTHON, None
            try:
                values = _literal_value(iterable)
                if isinstance(values, tuple):  # a representative element when they all have one type
                    return ArgKind.PYTHON, values[0] if values and len({_shape_of(v) for v in values}) == 1 else None
            except ValueError:
                pass
        return ArgKind.UNKNOWN, None

    def _call(self, call: cst.Call, depth: int) -> tuple[ArgKind, object]:
        func = call.func
        if isinstance(func, cst.Name) and func.value in PYTHON_CALLS and not self.resolver.assignments(func):
            return ArgKind.PYTHON, None
        if isinstance(func, (cst.Name, cst.Attribute)):
            last = func.value if isinstance(func, cst.Name) else func.attr.value
            if last in _NOT_ARRAYS:
                return ArgKind.UNKNOWN, None
            try:
                qualified = self.resolver.qualified_names(func)
            except Exception:
                qualified = set()
            if qualified and all(q.startswith(_ARRAY_LIBRARIES) for q in qualified):
                return ArgKind.ARRAY, self._array_dtype(call, last, depth)
        return ArgKind.UNKNOWN, None


_FLOAT_CONSTRUCTORS = frozenset(
    "ones zeros empty linspace logspace eye identity random_normal random_uniform normal uniform rand randn "
    "truncated_normal randn_like rand_like exp log sqrt sin cos tanh sigmoid softplus".split())
_FLOAT_DTYPES = ("float16", "float32", "float64", "bfloat16", "float_", "double", "half")
_DTYPE_NAMES = frozenset(_FLOAT_DTYPES) | {f"{k}{n}" for k in ("int", "uint") for n in (8, 16, 32, 64)} | {"bool_", "int_"}


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
    return (len(data), *inner.pop())


def _has_float(value) -> bool:
    return isinstance(value, float) or isinstance(value, tuple) and any(_has_float(v) for v in value)


class CallSites:
    """Calls of jitted callables in a module, and what they pass (computed per function on demand)."""

    def __init__(self, resolver: NameResolver, project=None, open_module: str = "") -> None:
        self.resolver = resolver
        self.kinds = ArgumentKinds(resolver)
        self.project = project  # FileFacts from the project index, or None
        # Why the module's public functions may be called by code not in the run ("" when every caller is seen)
        self.open_module = open_module
        self._cache: dict[int, CallEvidence] = {}

    def of(self, fn: cst.FunctionDef | cst.Lambda, how: str, application: cst.Call | None = None) -> CallEvidence:
        """Evidence for the jitted callable of `fn`: the decorated def itself, or the value of `application`."""
        key = id(application) if application is not None else id(fn)
        if key not in self._cache:
            evidence = self._collect(fn, how, application)
            self._add_remote(fn, evidence)
            self._cache[key] = evidence
        return self._cache[key]

    def _add_remote(self, fn, evidence: CallEvidence) -> None:
        """The calls other modules make of this jitted function (rewriter/project/index.py)."""
        if not self.project or not isinstance(fn, cst.FunctionDef):
            return
        from .jit import qualified_def_name

        name = qualified_def_name(self.resolver, fn)
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
                kind = {"python": ArgKind.PYTHON, "array": ArgKind.ARRAY}.get(arg.kind, ArgKind.UNKNOWN)
                evidence.params[arg.param].passed.append(Passed(kind, arg.value, None, None, where=call.where))
                given.add(arg.param)
            for name_, param in evidence.params.items():
                if name_ not in given:
                    param.omitted += 1

    def _collect(self, fn, how: str, application: cst.Call | None) -> CallEvidence:
        params = _parameters(fn)
        evidence = CallEvidence([], {p: ParamEvidence(p) for p in params}, complete=True)
        uses: list[cst.CSTNode] = []
        shown = f"`{fn.name.value}`" if isinstance(fn, cst.FunctionDef) else "the function"
        if how == "decorator" and isinstance(fn, cst.FunctionDef):
            uses = self._reads_of_binding(fn.name, fn)
            if self._in_class(fn):
                evidence.escape(f"{shown} is a method: its calls through `self` or an instance are not followed")
            for decorator in self._registering(fn):
                evidence.escape(f"{shown} is handed to the decorator `@{_code(decorator)}`")
            if self.open_module and not fn.name.value.startswith("_") and self._at_module_level(fn):
                evidence.escape(f"{shown} is public: {self.open_module}")
        elif how == "wrapped" and application is not None:
            parent = self.resolver.parent(application)
            if isinstance(parent, cst.Call) and parent.func is application:
                uses = [application]
            else:
                target = _assigned_name(self.resolver, application)
                if target is None:
                    evidence.escape(f"the jitted `{_code(application)}` is stored or passed where its calls are not seen")
                else:
                    uses = self._reads_of_binding(target, target)
                    shown = f"`{target.value}`"
                    if self.open_module and not target.value.startswith("_") and self._at_module_level(target):
                        evidence.escape(f"{shown} is public: {self.open_module}")
        else:
            evidence.escape("")
        for use in uses:
            if use is None:
                evidence.escape(f"{shown} is bound more than once: some calls may be of another function")
                continue
            parent = self.resolver.parent(use)
            if not (isinstance(parent, cst.Call) and parent.func is use):
                evidence.escape(self._escape_of(use, parent, shown))  # passed on, stored, wrapped again
                continue
            if not self._bind(fn, parent, evidence):
                evidence.complete = False
        return evidence

    def _escape_of(self, use: cst.CSTNode, parent: cst.CSTNode | None, shown: str) -> str:
        """How a read that is not a call lets the function out: "`step` is passed to `run`"."""
        if isinstance(parent, cst.Arg):
            call = self.resolver.parent(parent)
            callee = _code(call.func) if isinstance(call, cst.Call) else "a call"
            return f"{shown} is passed to `{callee}`"
        if isinstance(parent, cst.Return):
            return f"{shown} is returned"
        if isinstance(parent, (cst.Element, cst.DictElement, cst.StarredElement)):
            return f"{shown} is stored in a container"
        if isinstance(parent, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = parent.targets if isinstance(parent, cst.Assign) else [parent]
            where = ", ".join(f"`{_code(t.target)}`" for t in targets)
            return f"{shown} is assigned to {where}"
        if isinstance(parent, cst.Decorator):
            return f"{shown} is used as a decorator"
        return f"{shown} is used other than by a call"

    def _registering(self, fn: cst.FunctionDef) -> list[cst.BaseExpression]:
        """The decorators of `fn` that receive the function object and are no transform the table knows
        (`@register`, `@app.route(...)`): each may keep it and call it where no call here shows."""
        from .apis import Kind
        from .transforms import match_transform

        out = []
        for decorator in fn.decorators:
            expr = decorator.decorator
            if match_transform(self.resolver, expr, tuple(Kind)) is not None:
                continue
            name = dotted(expr.func if isinstance(expr, cst.Call) else expr) or ""
            if name.rsplit(".", 1)[-1] in _PLAIN_DECORATORS:
                continue
            out.append(expr)
        return out

    def _at_module_level(self, node: cst.CSTNode) -> bool:
        """Bound outside every function and class: a module's own name, which others import."""
        return not any(isinstance(a, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) for a in ancestors(self.resolver, node))

    def _reads_of_binding(self, name: cst.Name, binding_node: cst.CSTNode) -> list[cst.CSTNode | None]:
        """Reads of the name bound at `binding_node` that see that binding (flow-sensitively)."""
        scope = self.resolver.scope(binding_node)
        if scope is None:
            return []
        # The binding lives in the scope that contains the def/assignment statement.
        assignment = None
        for candidate in scope.assignments[name.value] if name.value in scope.assignments else ():
            if getattr(candidate, "node", None) is binding_node:
                assignment = candidate
                break
        if assignment is None:
            return []
        out = []
        for access in assignment.references:
            node = access.node
            if not isinstance(node, cst.Name):
                continue
            reaching = self.resolver.reaching(node)
            if assignment in reaching and len(reaching) == 1:
                out.append(node)
            elif assignment in reaching:
                out.append(None)  # may be this function or another: a use we cannot attribute
        return out

    def _bind(self, fn, call: cst.Call, evidence: CallEvidence) -> bool:
        """Record what `call` passes to each parameter; False when it cannot be bound (`*args`, `**kw`)."""
        if any(arg.star for arg in call.args):
            return False
        evidence.calls.append(call)
        positional = positional_params(fn)
        given: set[str] = set()
        index = 0
        for arg in call.args:
            if arg.keyword is not None:
                name = arg.keyword.value
            elif index < len(positional):
                name = positional[index]
                index += 1
            else:
                return False
            if name not in evidence.params:
                return False
            kind, value = self.kinds.kind(arg.value)
            literal = self.kinds.wrapped_number(arg.value) if kind is ArgKind.ARRAY else None
            shape = self.kinds.shape_label(arg.value) if kind is ArgKind.ARRAY else None
            evidence.params[name].passed.append(Passed(kind, value, call, arg.value, literal, shape))
            given.add(name)
        for name, param in evidence.params.items():
            if name not in given:
                param.omitted += 1
        return True

    def _in_class(self, fn: cst.FunctionDef) -> bool:
        parent = self.resolver.parent(fn)
        while parent is not None and not isinstance(parent, (cst.ClassDef, cst.FunctionDef, cst.Module)):
            parent = self.resolver.parent(parent)
        return isinstance(parent, cst.ClassDef)


def bound_expression(resolver: NameResolver, target: cst.CSTNode | None) -> cst.BaseExpression | None:
    """The expression a Name target is bound to: `x = <e>`, `x: T = <e>`, and element-wise `x, y = <a>, <b>`."""
    if not isinstance(target, cst.Name):
        return None
    parent = resolver.parent(target)
    if isinstance(parent, cst.Element):
        packed = resolver.parent(parent)
        holder = resolver.parent(packed)
        assign = resolver.parent(holder) if isinstance(holder, cst.AssignTarget) else None
        if isinstance(assign, cst.Assign) and isinstance(assign.value, (cst.Tuple, cst.List)) \
                and len(assign.value.elements) == len(packed.elements) \
                and not any(isinstance(e, cst.StarredElement) for e in (*packed.elements, *assign.value.elements)):
            index = next(i for i, e in enumerate(packed.elements) if e is parent)
            return assign.value.elements[index].value
        return None
    if isinstance(parent, cst.AssignTarget):
        assign = resolver.parent(parent)
        return assign.value if isinstance(assign, cst.Assign) else None
    if isinstance(parent, cst.AnnAssign) and parent.target is target:
        return parent.value
    return None


def _parameters(fn) -> list[str]:
    p = fn.params
    return [q.name.value for q in (*p.posonly_params, *p.params, *p.kwonly_params)]


def _assigned_name(resolver: NameResolver, value: cst.CSTNode) -> cst.Name | None:
    """`name = <value>` (one plain target): the target Name."""
    parent = resolver.parent(value)
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
        return parent.targets[0].target
    if isinstance(parent, cst.AnnAssign) and isinstance(parent.target, cst.Name):
        return parent.target
    return None


class Role(str, enum.Enum):
    STATIC = "static"  # declared static: static_argnums/static_argnames/auxiliary_args
    DEFAULTED = "defaulted"  # every call in this module leaves it at its default: a constant at trace time
    CONFIG = "configuration"  # a Python value: by its annotation, its default, or every call site
    DATA = "data"  # some call passes an array
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ParamRole:
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




def annotation_name(param: cst.Param) -> str | None:
    """`bool` for `flag: bool`, `Literal` for `mode: Literal['a', 'b']`, the last name of a dotted one."""
    if param.annotation is None:
        return None
    ann = param.annotation.annotation
    if isinstance(ann, cst.Subscript):
        ann = ann.value
    if isinstance(ann, cst.Name):
        return ann.value
    if isinstance(ann, cst.Attribute):
        return ann.attr.value
    if isinstance(ann, cst.SimpleString):
        value = ann.evaluated_value
        return value if isinstance(value, str) else None
    return None


def param_role(param: cst.Param, static: frozenset[str] | None, evidence: CallEvidence | None) -> ParamRole:
    """What a parameter of a jitted function is, from its declaration and the calls in this module.

    The evidence text quotes values, not lines: an editor's provisional analysis reuses the roles of
    the whole buffer while lines move (rewriter/lsp/incremental.py)."""
    name = param.name.value
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
        shown = f"at {first.where}" if first.where else f"`{_code(first.expr)}`"
        return ParamRole(Role.DATA, f"an array is passed ({shown})", arrays=arrays, literals=literals,
                         shapes=shapes, open=open_)
    if seen is not None and seen.never_passed and param.default is not None and (evidence.calls or evidence.remote):
        if evidence.remote:
            return ParamRole(Role.DEFAULTED, f"every call ({len(evidence.calls)} in this file, and at "
                                             f"{_places(evidence.remote)}) leaves it at its default", open=open_)
        return ParamRole(Role.DEFAULTED, f"every call in this file ({len(evidence.calls)}) leaves it at its default",
                         open=open_)
    ann = annotation_name(param)
    if ann in CONFIGURATION_ANNOTATIONS:
        return ParamRole(Role.CONFIG, f"annotated `{ann}`", values)
    if seen is not None and seen.only_python:
        distinct = list(dict.fromkeys(repr(p.value) if p.value is not None or p.where else _code(p.expr) for p in seen.passed))
        shown = ", ".join(f"`{text}`" for text in distinct[:3]) + (", ..." if len(distinct) > 3 else "")
        remote = [p.where for p in seen.passed if p.where]
        elsewhere = f" (at {_places(remote)})" if remote else ""
        return ParamRole(Role.CONFIG, f"passed only as Python values: {shown}{elsewhere}", values, open=open_)
    if ann is None and param.default is not None and not (seen is not None and seen.passed and not seen.only_python):
        try:
            default = _literal_value(param.default)
        except ValueError:
            default = None
        if isinstance(default, (bool, int, float, str)):
            return ParamRole(Role.CONFIG, f"defaults to `{default!r}`", values, open=open_)
    return ParamRole(Role.UNKNOWN, "")


def _places(wheres: list[str], limit: int = 3) -> str:
    """`train.py:41 and eval.py:12`: the calls in other modules a verdict rests on."""
    distinct = list(dict.fromkeys(wheres))
    shown = distinct[:limit] + ([f"{len(distinct) - limit} more"] if len(distinct) > limit else [])
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _code(node: cst.CSTNode, limit: int = 30) -> str:
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
