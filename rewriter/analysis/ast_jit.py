"""Jit contexts on CPython's `ast`: which functions are traced, by which transform, and which parameters
stay static (the transforms' spellings: transforms.py).

A function is traced when it is decorated with a jit transform (`@jax.jit`, `@math.jit_compile(...)`,
`@partial(jax.jit, static_argnums=0)`, stacked with others), when it is wrapped anywhere in the module
(`f_jit = jax.jit(f)`, `math.jit_compile(f)(x)`), when another module of the project traces it, or when
it is a function of this module called from a traced body. The contexts, and their order, are those
libcst's jit analysis found (deleted: issue 45): tests/test_ast_jit.py records them on the golden cases
and the examples.
"""
from __future__ import annotations

import ast
from ast import (AnnAssign, Assign, AsyncFunctionDef, Attribute, AugAssign, Call, ClassDef, Constant, FunctionDef, Lambda, List,
                 Load, Module, Name, Starred, Tuple, USub, UnaryOp)
from typing import Iterable, Union

from .apis import Kind
from .ast_names import branches
from .ast_resolver import NameResolver
from .jit_contexts import JitContexts
from .transforms import Application, Transform, static_parameters

FunctionNode = Union[FunctionDef, AsyncFunctionDef, Lambda]
_DEFS = (FunctionDef, AsyncFunctionDef)
_FUNCTIONS = (FunctionDef, AsyncFunctionDef, Lambda)
_CHAINS = (Name, Attribute)


# -- transforms (transforms.py; Transform and Application are shared) ------------------------------
def _unpacks(call: Call) -> bool:
    """`*args` or `**kwargs` among the arguments."""
    return any(type(a) is Starred for a in call.args) or any(k.arg is None for k in call.keywords)


def _positional(call: Call) -> list[ast.expr]:
    return [a for a in call.args if type(a) is not Starred]


def _keywords(call: Call) -> tuple[ast.keyword, ...]:
    return tuple(k for k in call.keywords if k.arg is not None)


def match_transform(resolver: NameResolver, expr: ast.expr, kinds: Iterable[Kind]) -> Transform | None:
    """`expr` denotes a configured transform of one of `kinds` (bare, factory or partial form)."""
    kinds = set(kinds)
    if type(expr) in _CHAINS:
        api = resolver.api(expr, kinds)
        return Transform(api, expr, ()) if api is not None else None
    if type(expr) is not Call or type(expr.func) not in _CHAINS:
        return None
    positional = _positional(expr)
    inner = positional[0] if positional else None
    # Resolve nothing unless the spelling can work: `partial(<kinds>, ...)` or `<kinds>(...)`.
    maybe_partial = type(inner) in _CHAINS and resolver.could_be_api(inner, kinds)
    callee = resolver.api(expr.func, kinds | {Kind.PARTIAL} if maybe_partial else kinds)
    if callee is None:
        return None
    if callee.kind is Kind.PARTIAL:
        if _unpacks(expr):
            return None
        api = resolver.api(inner, kinds)
        if api is None:
            return None
        return Transform(api, expr, _keywords(expr), tuple(positional[1:]))
    if callee.kind in kinds and not positional and not _unpacks(expr):
        return Transform(callee, expr, _keywords(expr))  # factory: math.jit_compile(auxiliary_args='n')
    return None


def match_application(resolver: NameResolver, call: Call, kinds: Iterable[Kind]) -> Application | None:
    """`call` applies a transform of one of `kinds` to a function."""
    kinds = set(kinds)
    if _unpacks(call):
        return None
    positional = call.args
    if not positional:
        return None
    func = call.func
    if type(func) in _CHAINS:
        api = resolver.api(func, kinds)
        if api is None:
            return None
        return Application(call, Transform(api, func, _keywords(call), tuple(positional[1:])), positional[0])
    if type(func) is Call:
        transform = match_transform(resolver, func, kinds)
        if transform is None or len(positional) != 1 or _keywords(call):
            return None
        return Application(call, transform, positional[0])
    return None


JIT_KINDS = frozenset({Kind.JIT})


def _first_positional(call: Call) -> ast.expr | None:
    """The first argument without a keyword, unless a `*args` comes first (libcst's first `Arg` without
    a keyword or a star)."""
    for a in call.args:
        if type(a) is not Starred:
            return a
    return None


def spelled_transform(resolver: NameResolver, expr: ast.expr, kinds: Iterable[Kind] = JIT_KINDS) -> bool:
    """`expr` may denote a transform of `kinds`, by its spelling (syntax.spelled_transform on libcst): bare,
    factory call, or `partial(<transform>, ...)`."""
    if type(expr) in _CHAINS:
        return resolver.could_be_api(expr, kinds)
    if type(expr) is Call and type(expr.func) in _CHAINS:
        if resolver.could_be_api(expr.func, kinds):
            return True
        first = _first_positional(expr)
        return type(first) in _CHAINS and resolver.could_be_api(first, kinds)
    return False


def spelled_application(resolver: NameResolver, call: Call, kinds: Iterable[Kind] = JIT_KINDS) -> ast.expr | None:
    """The wrapped-function argument if `call` may apply a transform of `kinds` (syntax.spelled_application)."""
    first = _first_positional(call)
    if first is None:
        return None
    if type(call.func) in _CHAINS and resolver.could_be_api(call.func, kinds):
        return first
    if type(call.func) is Call and spelled_transform(resolver, call.func, kinds):
        return first
    return None


class SpelledJits:
    """What the spellings of a module say may be jitted: the defs with a
    decorator that may be a jit, the names assigned or handed to a jit application, the lambdas handed to
    one. A rule asks it before it resolves anything."""

    def __init__(self, resolver: NameResolver, nodes: Iterable[ast.AST]) -> None:
        """`nodes`: the module's defs, calls and assignments (AstModule.nodes), or any walk of its tree."""
        self.resolver = resolver
        self.decorated: set[str] = set()
        self.assigned: set[str] = set()
        self.wrapped: set[str] = set()
        self.lambdas: set[int] = set()
        for node in nodes:
            kind = type(node)
            if kind in _DEFS:
                if any(spelled_transform(resolver, d) for d in node.decorator_list):  # type: ignore[attr-defined]
                    self.decorated.add(node.name)  # type: ignore[attr-defined]
            elif kind is Call:
                wrapped = spelled_application(resolver, node)  # type: ignore[arg-type]
                if type(wrapped) is Name:
                    self.wrapped.add(wrapped.id)  # type: ignore[union-attr]
                elif type(wrapped) is Attribute and type(wrapped.value) is Name and wrapped.value.id == "self":  # type: ignore[union-attr]
                    self.wrapped.add(wrapped.attr)  # type: ignore[union-attr]
                elif type(wrapped) is Lambda:
                    self.lambdas.add(id(wrapped))
            elif kind is Assign and type(node.value) is Call and spelled_application(resolver, node.value) is not None:  # type: ignore[attr-defined]
                self.assigned.update(t.id for t in node.targets if type(t) is Name)  # type: ignore[attr-defined]

    def any(self) -> bool:
        return bool(self.decorated or self.wrapped or self.lambdas)

    def may_be_jitted(self, expr: ast.expr) -> bool:
        if type(expr) is Name:
            return expr.id in self.decorated or expr.id in self.assigned  # type: ignore[attr-defined]
        return type(expr) is Call and spelled_application(self.resolver, expr) is not None  # type: ignore[arg-type]

    def may_be_traced(self, functions) -> bool:
        """One of the enclosing `functions` may be a jit context (decorated, wrapped, or a jitted lambda)."""
        for fn in functions:
            if type(fn) is Lambda:
                if id(fn) in self.lambdas:
                    return True
            elif fn.name in self.decorated or fn.name in self.wrapped:
                return True
        return False


def literal(node: ast.expr):
    """The Python value of a literal int/str/bytes/tuple/list/None/bool expression (transforms.literal);
    raises ValueError otherwise."""
    if type(node) is Constant and type(node.value) in (int, str, bytes, bool, type(None)):
        return node.value
    if type(node) is Tuple or type(node) is List:
        return tuple(literal(e) for e in node.elts if type(e) is not Starred)
    if type(node) is UnaryOp and type(node.op) is USub:
        return -literal(node.operand)
    raise ValueError("not a literal")


def positional_params(fn: FunctionNode) -> list[str]:
    return [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]


def static_params(transform: Transform, fn: FunctionNode) -> frozenset[str] | None:
    """Parameters the transform keeps static (not traced); None when that cannot be read statically."""
    every = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
    return static_parameters(transform.api, transform.keyword, literal, positional_params(fn), every)


# -- contexts (jit_contexts.py) -------------------------------------------------------------------
class _Collected:
    """The jit-decorated defs and the jit applications of a module, in the order of the source, and the
    calls each function makes (`calls_of`), found when first asked: only jitted functions and the
    helpers they call are."""

    __slots__ = ("decorated", "applications", "_calls")

    def __init__(self) -> None:
        self.decorated: list[tuple[FunctionDef | AsyncFunctionDef, Transform]] = []
        self.applications: list[Application] = []
        self._calls: dict[int, list[Call]] = {}

    def calls_of(self, fn: ast.AST) -> list[Call]:
        """The calls in `fn` in the order of the source (a call in its decorators or defaults, or in a
        function nested in it, counts as its own, as libcst's walk meets them inside the def)."""
        found = self._calls.get(id(fn))
        if found is None:
            found = []
            stack = branches(fn)
            while stack:
                node = stack.pop()
                if type(node) is Call:
                    found.append(node)
                stack.extend(branches(node))
            found.sort(key=_source_order)
            self._calls[id(fn)] = found
        return found


def _source_order(node: ast.AST) -> tuple:
    """A node's place in a walk in source order (an outer call before the call it starts with)."""
    return node.lineno, node.col_offset, -node.end_lineno, -node.end_col_offset  # type: ignore[attr-defined, operator]


def _collect(resolver: NameResolver) -> _Collected:
    """The jit-decorated defs and the jit applications, in the order of the source (no two calls
    start and end at the same places: sorting what matched orders it as the source does), off the walk
    the module keeps for its other readers where it has one."""
    out = _Collected()
    nodes = resolver.nodes
    defs: list[FunctionDef | AsyncFunctionDef] = [node for node in nodes if type(node) in _DEFS]  # type: ignore[misc]
    for fn in sorted(defs, key=_source_order):
        for decorator in fn.decorator_list:
            transform = match_transform(resolver, decorator, (Kind.JIT,))
            if transform is not None:
                out.decorated.append((fn, transform))
    call = Call
    for node in nodes:
        if type(node) is call:
            app = match_application(resolver, node, (Kind.JIT,))
            if app is not None:
                out.applications.append(app)
    out.applications.sort(key=lambda app: _source_order(app.call))
    return out


class JitAnalysis(JitContexts):
    """The jit contexts of a module's ast (jit_contexts.py)."""

    def _collect(self) -> _Collected:
        return _collect(self.resolver)

    def _static_params(self, transform: Transform, fn) -> frozenset[str] | None:
        return static_params(transform, fn)

    def _module_function(self, name: str) -> FunctionDef | AsyncFunctionDef | None:
        return module_function(self.resolver.tree, name)

    def _transform_named(self, api, name: str) -> Transform:
        return Transform(api, Name(name, Load()), ())

    def _callee(self, expr) -> bool:
        return type(expr) in _CHAINS

    def _function(self, node) -> bool:
        return type(node) in _FUNCTIONS

    def remote_traces(self, fn: ast.AST) -> list:
        """The RemoteTrace facts of `fn` ("called" ones: what traced callers elsewhere pass it)."""
        if not self.project or type(fn) not in _DEFS:
            return []
        name = qualified_def_name(self.resolver, fn)  # type: ignore[arg-type]
        return [t for t in self.project.traces if t.function == name and t.how == "called"] if name else []

    # -- queries ---------------------------------------------------------------------------
    def functions_denoted(self, expr: ast.expr) -> list[FunctionNode]:
        """The lambda itself, or the defs a name denotes where it is read (only when every binding that
        may reach the read is a def: a def that is rebound before the read is another function)."""
        if type(expr) is Lambda:
            return [expr]  # type: ignore[list-item]
        if type(expr) is not Name:
            return []
        assignments = self.resolver.reaching(expr)
        # (in the order they are written: a set's order differs from run to run, and contexts keep it)
        defs = [a.node for a in sorted(assignments, key=lambda a: a.created) if type(getattr(a, "node", None)) in _DEFS]
        return defs if defs and len(defs) == len(assignments) else []

    def method_denoted(self, expr: ast.expr) -> list[FunctionDef | AsyncFunctionDef]:
        """`self.step` read in a method: the def `step` of that class's own body (not inherited, not
        rebound there), when `self` is the method's first parameter and never rebound."""
        if type(expr) is not Attribute or type(expr.value) is not Name or expr.value.id != "self":
            return []
        bindings = self.resolver.assignments(expr.value)
        if len(bindings) != 1:
            return []
        param = getattr(next(iter(bindings)), "node", None)
        arguments = self.resolver.parent(param) if type(param) is ast.arg else None
        method = self.resolver.parent(arguments) if arguments is not None else None
        if not isinstance(method, _DEFS) or not method.args.args or method.args.args[0] is not param \
                or any(_decorator_name(d) in ("staticmethod", "classmethod") for d in method.decorator_list):
            return []
        cls = self.resolver.parent(method)
        if type(cls) is not ClassDef:
            return []
        named = [s for s in cls.body if _binds(s, expr.attr)]
        return named if len(named) == 1 and type(named[0]) in _DEFS else []  # type: ignore[return-value]

    def jitted_value(self, expr: ast.expr) -> Transform | None:
        """The jit transform `expr` already carries: a jit application, or a name bound only to jitted things."""
        if type(expr) is Call:
            app = match_application(self.resolver, expr, (Kind.JIT,))  # type: ignore[arg-type]
            return app.transform if app is not None else None
        if type(expr) is not Name:
            return None
        assignments = self.resolver.reaching(expr)
        if not assignments:
            return None
        found: Transform | None = None
        for assignment in assignments:
            node = getattr(assignment, "node", None)
            if type(node) in _DEFS and id(node) in self._jitted_defs:
                found = self._jitted_defs[id(node)]
                continue
            value = assigned_value(self.resolver, node)
            transform = self.jitted_value(value) if type(value) is Call else None
            if transform is None:
                return None
            found = transform
        return found


def _decorator_name(decorator: ast.expr) -> str:
    return decorator.id if type(decorator) is Name else decorator.attr if type(decorator) is Attribute else ""  # type: ignore[attr-defined]


def _binds(statement: ast.stmt, name: str) -> bool:
    """A class-body statement that binds `name`: a def, or an assignment whose targets spell it."""
    if type(statement) in _DEFS:
        return statement.name == name  # type: ignore[attr-defined]
    targets = statement.targets if type(statement) is Assign else \
        [statement.target] if type(statement) in (AnnAssign, AugAssign) else []  # type: ignore[attr-defined]
    return any(type(n) is Name and n.id == name for t in targets for n in _names_in(t))


def _names_in(target: ast.expr) -> list[ast.expr]:
    if type(target) is Tuple or type(target) is List:
        return [n for e in target.elts for n in _names_in(e)]
    return [target]


def module_function(tree: Module, name: str) -> FunctionDef | AsyncFunctionDef | None:
    """The def a project fact names: `f` at module level (the last one), or `make.f` nested in it."""
    outer, _, inner = name.partition(".")
    found: FunctionDef | AsyncFunctionDef | None = None
    for stmt in tree.body:
        if isinstance(stmt, _DEFS) and stmt.name == outer:
            found = stmt
    if found is None or not inner:
        return found
    indented = found.body[0].lineno != found.lineno  # (libcst's jit analysis read an indented body only)
    nested = [s for s in found.body if isinstance(s, _DEFS) and s.name == inner] if indented else []
    return nested[-1] if nested else None


def qualified_def_name(resolver: NameResolver, fn: FunctionDef | AsyncFunctionDef) -> str | None:
    """`f` for a module-level def, `make.f` for a def directly in one (the names project facts use)."""
    parent = resolver.parent(fn)
    if type(parent) is Module:
        return fn.name
    if isinstance(parent, _DEFS) and fn in parent.body and type(resolver.parent(parent)) is Module:
        return f"{parent.name}.{fn.name}"
    return None


def bound_value(resolver: NameResolver, name: ast.expr) -> ast.expr | None:
    """The value of `name`'s one binding, when it has exactly one and it is `name = value`."""
    if type(name) is not Name:
        return None
    assignments = resolver.assignments(name)
    if len(assignments) != 1:
        return None
    return assigned_value(resolver, getattr(next(iter(assignments)), "node", None))


def assigned_value(resolver: NameResolver, target: ast.AST | None) -> ast.expr | None:
    """For `name = value` (single plain target), the value; else None."""
    if type(target) is not Name:
        return None
    parent = resolver.parent(target)
    if type(parent) is Assign and len(parent.targets) == 1 and parent.targets[0] is target:
        return parent.value
    if type(parent) is AnnAssign and parent.target is target and parent.value is not None:
        return parent.value
    return None
