"""What one installed module binds at its top level, read from its source with CPython `ast`.

The module is never imported: importing jax, PhiFlow or tensorflow costs seconds and runs their side
effects (backend selection, logging set-up). Reading is enough for what the rewriter needs to know:
which names a module binds, and whether each is its own object or a re-export (`from X import a as
b`, `from X import *`, `b = a`).

The top-level statements are interpreted in order, keeping for every name the set of things it may
be bound to: both branches of an `if` (except `if TYPE_CHECKING:`, which never runs), a `try` body
that may stop anywhere, loops that may not run, `del`. `from X import *` is expanded through a
callback that knows what X exports, so this module reads one file and nothing else.
"""
from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .aliases import package_of


@dataclass(frozen=True)
class Ref:
    """`from module import name`: whatever `module.name` is."""

    module: str
    name: str


@dataclass(frozen=True)
class ModuleRef:
    """A module object: `import a.b as c`, `sys.modules[__name__]`."""

    module: str


@dataclass(frozen=True)
class Defined:
    """An object this module creates (def, class, assignment): its own, known as `module.name`."""


@dataclass(frozen=True)
class Unbound:
    """The name may not be bound (a branch that does not bind it, a `del`)."""


DEFINED, UNBOUND = Defined(), Unbound()
Binding = Ref | ModuleRef | Defined | Unbound
State = dict[str, frozenset]

# What a module's `__getattr__` answers for names it does not bind: nothing (no `__getattr__`),
# anything (unknown), or jax's `deprecation_getattr(__name__, {...})`: name -> still present.
NO_GETATTR: dict[str, bool] = {}
ANY_GETATTR = None


@dataclass
class ModuleSource:
    """What one installed module binds at its top level and exports, read from its source, never imported."""
    name: str
    is_package: bool
    bindings: State = field(default_factory=dict)
    # A literal `__all__` (None: not given, or computed; then `*` exports the public names).
    all_names: tuple[str, ...] | None = None
    # Bindings that cannot be read: `globals()` writes, a star import of an unreadable module.
    open: bool = False
    getattr_names: dict[str, bool] | None = field(default_factory=dict)

    def definitely_bound(self, name: str) -> bool:
        values = self.bindings.get(name)
        return bool(values) and UNBOUND not in values

    def possibly_bound(self, name: str) -> bool:
        return bool(self.bindings.get(name, frozenset()) - {UNBOUND})

    def star_names(self) -> list[str]:
        """What `from <this module> import *` binds."""
        if self.all_names is not None:
            return list(self.all_names)
        return sorted(n for n in self.bindings if not n.startswith("_") and self.possibly_bound(n))


ExportsOf = Callable[[str], "Iterable[str] | None"]  # module -> the names its `*` binds (None: unknown)


def read_module(name: str, source: bytes | str, is_package: bool, exports_of: ExportsOf) -> ModuleSource:
    """The top-level bindings of the module `name` with this source."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(source)
    reader = _Reader(ModuleSource(name, is_package), exports_of)
    state = reader.block(tree.body, {})
    reader.result.bindings = state
    return reader.result


def _merge(*states: State) -> State:
    out: State = {}
    for name in {n for s in states for n in s}:
        values = frozenset().union(*(s.get(name, frozenset({UNBOUND})) for s in states))
        out[name] = values
    return out


def _literal_strings(node: ast.AST) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal_strings(node.left), _literal_strings(node.right)
        return None if left is None or right is None else left + right
    return None


def _is_type_checking(test: ast.AST) -> bool:
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" or \
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


class _Reader:
    def __init__(self, result: ModuleSource, exports_of: ExportsOf) -> None:
        self.result = result
        self.exports_of = exports_of
        self.dict_literals: dict[str, dict[str, bool]] = {}  # `_deprecations = {...}`: name -> present
        self.all_dynamic = False

    @property
    def package(self) -> str:
        return package_of(self.result.name, self.result.is_package)

    def absolute(self, module: str | None, level: int) -> str:
        if not level:
            return module or ""
        base = self.package.split(".")
        base = base[: len(base) - (level - 1)] if level > 1 else base
        return ".".join([*base, module] if module else base)

    # -- statements ------------------------------------------------------------------------------
    def block(self, body: list[ast.stmt], state: State) -> State:
        for stmt in body:
            state = self.statement(stmt, state)
        return state

    def statement(self, stmt: ast.stmt, state: State) -> State:
        state = dict(state)
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    state[alias.asname] = frozenset({ModuleRef(alias.name)})
                else:
                    top = alias.name.split(".")[0]
                    state[top] = frozenset({ModuleRef(top)})
        elif isinstance(stmt, ast.ImportFrom):
            module = self.absolute(stmt.module, stmt.level)
            for alias in stmt.names:
                if alias.name == "*":
                    self.star(module, state)
                else:
                    state[alias.asname or alias.name] = frozenset({Ref(module, alias.name)})
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            state[stmt.name] = frozenset({DEFINED})
            if stmt.name == "__getattr__":
                self.result.getattr_names = ANY_GETATTR
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                self.assign(target, stmt.value, state)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign(stmt.target, stmt.value, state)
        elif isinstance(stmt, ast.AugAssign):
            if isinstance(stmt.target, ast.Name):
                if stmt.target.id == "__all__":
                    self.extend_all(_literal_strings(stmt.value))
                state[stmt.target.id] = frozenset({DEFINED})
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    state[target.id] = frozenset({UNBOUND})
        elif isinstance(stmt, ast.If):
            if _is_type_checking(stmt.test):
                return self.block(stmt.orelse, state)
            return _merge(self.block(stmt.body, state), self.block(stmt.orelse, state))
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            after_body = self.block(stmt.body, state)
            partial = _merge(state, after_body)  # the body may stop at any statement
            handled = [self.block(h.body, self.handler_state(h, partial)) for h in stmt.handlers]
            state = _merge(self.block(stmt.orelse, after_body), *handled)
            return self.block(stmt.finalbody, state)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            return self.block(stmt.body, state)
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            for target in ([stmt.target] if isinstance(stmt, (ast.For, ast.AsyncFor)) else []):
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        state[name.id] = frozenset({DEFINED})
            looped = _merge(state, self.block(stmt.body, state))
            return self.block(stmt.orelse, looped)
        elif isinstance(stmt, ast.Match):
            return _merge(state, *(self.block(case.body, state) for case in stmt.cases))
        elif isinstance(stmt, ast.Expr):
            self.expression_statement(stmt.value)
        return state

    def handler_state(self, handler: ast.ExceptHandler, state: State) -> State:
        if handler.name:
            state = {**state, handler.name: frozenset({UNBOUND})}  # deleted when the handler ends
        return state

    def star(self, module: str, state: State) -> None:
        names = self.exports_of(module)
        if names is None:
            self.result.open = True
            return
        for n in names:
            state[n] = frozenset({Ref(module, n)})

    def assign(self, target: ast.AST, value: ast.AST, state: State) -> None:
        if isinstance(target, ast.Name):
            if target.id == "__all__":
                strings = _literal_strings(value)
                if strings is None:
                    self.all_dynamic = True
                    self.result.all_names = None
                else:
                    self.result.all_names = tuple(strings)
            if target.id == "__getattr__":
                self.result.getattr_names = self.deprecation_getattr(value, state)
            if isinstance(value, ast.Dict):
                self.dict_literals[target.id] = _deprecations(value)
            state[target.id] = self.value_binding(value, state)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                for name in ast.walk(element):
                    if isinstance(name, ast.Name):
                        state[name.id] = frozenset({DEFINED})
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Call) \
                and isinstance(target.value.func, ast.Name) and target.value.func.id == "globals":
            self.result.open = True

    def value_binding(self, value: ast.AST, state: State) -> frozenset:
        """`b = a` re-binds whatever `a` is; `sys.modules[__name__]` is this module; else a new object."""
        if isinstance(value, ast.Name) and value.id in state:
            return state[value.id]
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Name) and value.slice.id == "__name__" \
                and isinstance(value.value, ast.Attribute) and value.value.attr == "modules" \
                and isinstance(value.value.value, ast.Name) \
                and state.get(value.value.value.id) == frozenset({ModuleRef("sys")}):
            return frozenset({ModuleRef(self.result.name)})
        return frozenset({DEFINED})

    def deprecation_getattr(self, value: ast.AST, state: State) -> dict[str, bool] | None:
        """jax's `__getattr__ = deprecation_getattr(__name__, _deprecations)` answers exactly the
        dict's names (present unless the entry's function is None); any other `__getattr__` is unknown."""
        if isinstance(value, ast.Call) and len(value.args) == 2 and isinstance(value.args[1], ast.Name):
            if isinstance(value.func, ast.Attribute):
                func = value.func.attr
            else:
                bound = state.get(getattr(value.func, "id", ""), frozenset())
                func = next(iter(bound)).name if len(bound) == 1 and isinstance(next(iter(bound)), Ref) else ""
            if func == "deprecation_getattr" and value.args[1].id in self.dict_literals:
                return dict(self.dict_literals[value.args[1].id])
        return ANY_GETATTR

    def extend_all(self, strings: list[str] | None) -> None:
        if strings is None or self.result.all_names is None:
            if not self.all_dynamic:
                self.result.all_names = None if strings is None else (*(self.result.all_names or ()), *strings)
            return
        self.result.all_names = (*self.result.all_names, *strings)

    def expression_statement(self, value: ast.AST) -> None:
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
            return
        receiver, method = value.func.value, value.func.attr
        if isinstance(receiver, ast.Name) and receiver.id == "__all__" and method in ("extend", "append"):
            strings = _literal_strings(value.args[0]) if method == "extend" and value.args else \
                [value.args[0].value] if value.args and isinstance(value.args[0], ast.Constant) and isinstance(value.args[0].value, str) else None
            self.extend_all(strings)
        elif isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id in ("globals", "vars"):
            self.result.open = True  # globals().update(...)


def _deprecations(node: ast.Dict) -> dict[str, bool]:
    """`{"name": (message, replacement_or_None), ...}` -> name: the replacement exists."""
    out = {}
    for key, value in zip(node.keys, node.values):
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            removed = isinstance(value, ast.Tuple) and len(value.elts) == 2 \
                and isinstance(value.elts[1], ast.Constant) and value.elts[1].value is None
            out[key.value] = not removed
    return out
