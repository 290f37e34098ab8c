"""One module's summary for the project index, read from CPython's `ast` (C speed, no libcst).

What other modules may need to know about this one, and nothing else:
- module-level bindings in order (a rebound name is two things): defs, classes, imports, jit
  applications (`step = jax.jit(physics.forward)`, `jax.jit(make(meta))`), calls and aliases;
- per module-level def: its parameters, its jit decorator with the parameters it keeps static, the
  calls it makes of other functions (each argument classified: a Python literal, an array, a value
  derived from its own parameters, or unknown), whether it is a factory (returns a def or lambda
  it creates, or a jit function it creates), and whether it returns a Python value for any arguments
  (a predicate about types: `isinstance(x, Array) or np.isscalar(x)`);
- calls made at module level, with the same classification.

Callees are recorded as absolute dotted names through the module's own imports (`physics.limiter`
under `import pkg.physics as physics` is `pkg.physics.limiter`); the index resolves them to
definitions, following re-exports. Summaries are plain tuples and dicts: JSON in the cache.
"""
from __future__ import annotations

import ast
from ast import (Add, AnnAssign, Assign, AsyncFor, AsyncFunctionDef, AsyncWith, Attribute, AugAssign, Await, BinOp,
                 BoolOp, Call as CallNode, ClassDef, Compare, Constant, Dict, ExceptHandler, For, FunctionDef, Global,
                 If, Import, ImportFrom, Is, IsNot, Lambda, List, Load, Module, Name, NamedExpr, Not, Return, Set,
                 Starred, Subscript, Try, Tuple, UnaryOp, While, With, Yield, YieldFrom)
import builtins
import json
import marshal
import zlib
from dataclasses import dataclass, field, fields

from ..analysis.aliases import absolute_module, package_of
from ..analysis.annotations import shape_properties
from ..analysis.apis import Kind, spelled_apis
from ..analysis.ast_names import LOOPS, SCOPES, Met, branches, children, dotted, literal_value, parse
from ..analysis.static_names import (STATIC_ATTRIBUTES, STATIC_BUILTINS, STATIC_CALLS, STATIC_FUNCTION_NAMES,
                                     STATIC_METHODS, STATIC_MODULES, TENSOR_ATTRIBUTES)

# Argument kinds at a call site. "params": derived from the caller's own parameters (named).
PYTHON, ARRAY, PARAMS, UNKNOWN = "python", "array", "params", "unknown"
NONE = "none"  # an argument written `None`: a Python value jit does not trace (an empty pytree)
_ARRAY_ROOTS = ("jax.numpy", "jax.random", "jax.lax", "jax.nn", "numpy", "phiml.math", "torch", "tensorflow", "phi.math",
                "phi.flow")
# Frameworks a project calls but is rarely part of (when it is, the module's own name says so).
_EXTERNAL = frozenset({"jax", "jaxlib", "numpy", "torch", "tensorflow", "phiml", "phi", "equinox", "diffrax", "scipy",
                       "optax", "flax", "matplotlib", "pandas"})
_BUILTINS = frozenset(dir(builtins))
_PYTHON_CALLS = frozenset({"len", "int", "float", "bool", "str", "round", "range", "isinstance", "type"})
_JSON_LITERALS = (bool, int, float, str, type(None))


@dataclass
class Call:
    """One call a module makes, its callee an absolute name and each argument classified: evidence for other modules."""
    target: str  # absolute dotted name of the callee
    line: int
    col: int
    args: list  # [position or keyword, kind (NONE too), detail]; detail: the literal (PYTHON), parameter names (PARAMS)
    in_loop: bool = False
    starred: bool = False  # `f(*a)` / `f(**k)`: arguments cannot be bound to parameters


@dataclass
class Function:
    """What other modules need of one def: its parameters, its jit decorator, its calls, whether it is a factory."""
    name: str
    line: int
    params: list  # every parameter name, in order: positional first, then keyword-only
    positional: int  # how many of `params` may be passed by position (more positional arguments go to `*args`)
    defaults: list  # names of parameters with a default
    jit: list | None = None  # [api name, framework, static parameter names or None (unreadable)]
    calls: list = field(default_factory=list)  # [Call] in its own body (nested defs and lambdas included)
    returns_new_function: str = ""  # a factory: the name of the nested def it returns ("<lambda>" for a lambda)
    returns_jit: list | None = None  # a jit factory: [api name, framework] of the jit function it creates and returns
    decorated: bool = False  # other decorators (`functools.cache` may hand out the same object again)
    nested: dict = field(default_factory=dict)  # name -> Function: defs nested one level (returned by factories)
    annotations: dict = field(default_factory=dict)  # parameter -> the last name of its annotation (`Shape`, `int`)
    # Every `return` gives a Python value whatever the arguments are, tracers included: a predicate about
    # types (`isinstance(x, Array) or np.isscalar(x)`), what ast_flow.py calls static by construction
    returns_python: bool = False
    # Otherwise, when each `return` is such a value but for calls of other functions (absolute targets,
    # as Call.target): it returns a Python value if each of them does (`return _is_scalar(x) or ...`).
    # The index reads them (propagation.Propagation._returns_python).
    python_if: list = field(default_factory=list)
    # A decorator no API of the table is spelled by, that may be a jit transform through the project's
    # re-exports (`@math.jit_compile` where `math` is a package of the project re-exporting PhiML's):
    # [its absolute target, its static keywords as given ({auxiliary_args/static_argnums/static_argnames:
    # value}; None: unreadable)]. The index resolves the target (propagation.Propagation._local).
    maybe_jit: list | None = None


@dataclass
class Summary:
    """What other modules need of one module: plain data, kept in the cache and sent between processes."""
    module: str
    package: bool  # an `__init__.py`
    bindings: dict = field(default_factory=dict)  # name -> [[line, kind, detail...], ...] in order
    functions: dict = field(default_factory=dict)  # name -> Function (the last def of that name)
    calls: list = field(default_factory=list)  # [Call] at module level, in module order
    stars: list = field(default_factory=list)  # modules imported with `*`
    references: list = field(default_factory=list)  # [target, line]: uses of module-level names other than recorded calls
    # "Class.method" -> [Call]: the calls in the methods of module-level classes that no decorator may trace
    # (a test class's `test_*` methods calling a jitted function): eager callers
    methods: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """Plain data for the cache (dataclasses.asdict is ten times slower on thousands of calls)."""
        def call(c: Call) -> dict:
            return {"target": c.target, "line": c.line, "col": c.col, "args": c.args, "in_loop": c.in_loop, "starred": c.starred}

        def function(f: Function) -> dict:
            return {"name": f.name, "line": f.line, "params": f.params, "positional": f.positional, "defaults": f.defaults,
                    "jit": f.jit, "calls": [call(c) for c in f.calls], "returns_new_function": f.returns_new_function,
                    "returns_jit": f.returns_jit, "decorated": f.decorated,
                    "nested": {k: function(v) for k, v in f.nested.items()}, "annotations": f.annotations,
                    "returns_python": f.returns_python, "python_if": f.python_if, "maybe_jit": f.maybe_jit}

        return {"module": self.module, "package": self.package, "bindings": self.bindings,
                "functions": {k: function(v) for k, v in self.functions.items()},
                "calls": [call(c) for c in self.calls], "stars": self.stars, "references": self.references,
                "methods": {k: [call(c) for c in v] for k, v in self.methods.items()}}

    def stored_form(self) -> bytes:
        """The record the cache keeps (`stored` reads it): the JSON, compressed. A run served from the cache
        reads every file's record and opens few: as JSON they are about as large as the sources, and
        reading them was much of such a run (docs/benchmarks.md, "stop 72")."""
        return zlib.compress(json.dumps(self.to_json()).encode(), 1)

    @classmethod
    def stored(cls, module: str, package: bool, record: bytes) -> "Summary":
        """The summary a cache record holds (`stored_form`), read when one of its fields is first asked for.
        A run served from the cache needs its files' module names only (their facts are cached too), and
        decoding every summary was much of such a run (docs/benchmarks.md). `module` and
        `package` are those the record was made for (its key holds them)."""
        summary = cls.__new__(cls)
        summary.__dict__.update(module=module, package=package, _record=record)
        return summary

    def __getattr__(self, name: str):
        """Only for a `stored` summary's other fields, absent until then (dataclass fields with a
        default factory are no class attributes): they are read from its record, once."""
        record = self.__dict__.get("_record") if not name.startswith("__") else None
        if record is None:
            raise AttributeError(name)
        loaded = Summary.from_json(json.loads(zlib.decompress(record)))
        for f in fields(Summary):
            self.__dict__.setdefault(f.name, getattr(loaded, f.name))  # (`module` kept: the index may rename it)
        self.__dict__.pop("_record", None)  # (after: another thread reading meanwhile reads the record too)
        return getattr(self, name)

    @classmethod
    def from_json(cls, data: dict) -> "Summary":
        def call(c: dict) -> Call:
            return Call(c["target"], c["line"], c["col"], c["args"], c["in_loop"], c["starred"])

        def function(d: dict) -> Function:
            return Function(d["name"], d["line"], d["params"], d["positional"], d["defaults"], d["jit"],
                            [call(c) for c in d["calls"]], d["returns_new_function"], d["returns_jit"], d["decorated"],
                            {k: function(v) for k, v in d["nested"].items()}, d["annotations"], d["returns_python"],
                            d["python_if"], d.get("maybe_jit"))

        return cls(module=data["module"], package=data["package"], bindings=data["bindings"],
                   functions={k: function(v) for k, v in data["functions"].items()},
                   calls=[call(c) for c in data["calls"]], stars=data["stars"], references=data["references"],
                   methods={k: [call(c) for c in v] for k, v in data.get("methods", {}).items()})

    def __reduce__(self):
        """Pickled as its plain data, marshalled: summaries cross from the survey's worker processes
        to the runner by the thousand, and pickle's way with dataclasses (an object and a state dict
        per call site) cost twice as much on both sides."""
        return _unmarshalled, (marshal.dumps(self.to_json()),)


def _unmarshalled(data: bytes) -> Summary:
    return Summary.from_json(marshal.loads(data))


def summarize(source: bytes, module: str, package: bool = False, tree: Module | None = None,
              kids: dict | None = None, met: Met | None = None) -> Summary | None:
    """The summary of one module, or None when CPython cannot parse it (the file's own run says why).
    `tree`: the module's ast, when the caller has parsed it already; `kids`: a dict the summary fills
    with each node's `ast_names.branches` by id (the pre-filter's walk of the same tree reads them
    instead of computing them again: rewriter/survey.py); `met`: what its walk met, for the
    pre-filter to read without a walk of its own (ast_names.Met: the reads it asks of a file's
    spellings before it walks it, prefilter.Syntax.spells_no_api; the identifiers)."""
    tree = tree if tree is not None else parse(source)
    if tree is None:
        return None
    return _Reader(module, package, kids if kids is not None else {}).read(tree, met)


class _Reader:
    def __init__(self, module: str, package: bool, kids: dict) -> None:
        self.out = Summary(module, package)
        self.kids = kids  # id(node) -> ast_names.branches(node), filled by the breadth-first walk
        self.package = package_of(module, package)
        self.imported: dict[str, set[str]] = {}  # local name -> absolute names (for API spellings)
        self.targets: dict[str, str] = {}  # local name -> absolute target of its import (last one)
        self.module_literals: dict[str, object] = {}  # module-level names bound once to a Python literal
        self.module_names: set[str] = set()  # every name bound at module level (in any branch)
        self.module_kinds: _LocalKinds | None = None
        self.recorded_funcs: set[int] = set()  # ids of the callee expressions of the calls recorded

    # -- the module ----------------------------------------------------------------------------
    def read(self, tree: Module, met: Met | None = None) -> Summary:
        declared_global, loads = _globals_and_loads(tree, self.kids, met if met is not None else Met())
        module_body = _Body(tree, self.kids)
        self.module_names = module_body.local
        for name, values in module_body.values.items():
            # A module literal: bound once in the whole module (branches included), never rebound by a
            # function's `global` statement.
            if len(values) != 1 or name in module_body.unknown or name in declared_global:
                continue
            kind = type(values[0])
            if kind is Constant:
                value = values[0].value  # what literal_value returns for it
            elif kind not in _MAYBE_LITERAL:
                continue  # (literal_value would refuse it)
            else:
                try:
                    value = literal_value(values[0])
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    continue
            if isinstance(value, _JSON_LITERALS):
                self.module_literals[name] = value
        self.module_kinds = _LocalKinds(self, module_body, set())
        self._block(tree.body)
        self._references(loads)
        self.module_kinds = None  # it points back at the reader: no cycle left to hold the tree
        return self.out

    def _references(self, loads: list) -> None:
        """Every use of a module-level name that is not a call recorded here: a function passed on
        (`map(f, xs)`, `vmap(f)`), aliased in a function, or called where no call is recorded (a class
        body, a method, a lambda): the index counts them as callers it cannot see into."""
        seen: set[str] = set()
        # The names `_target` may resolve a bare read of (without a `*` import: those it binds or imports);
        # most reads are of a function's locals, asked for nothing.
        bound = None if self.out.stars else self.module_names.union(self.targets)
        recorded = self.recorded_funcs
        for node in loads:
            if bound is not None and type(node) is Name and node.id not in bound or id(node) in recorded:
                continue
            target = self._target(node)
            if target is not None and target not in seen and not self._external(node):
                seen.add(target)
                self.out.references.append([target, node.lineno])

    def _block(self, body: list) -> None:
        for stmt in body:
            self._statement(stmt)

    def _statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (Import, ImportFrom)):
            self._import(stmt, record=True)
        elif isinstance(stmt, (FunctionDef, AsyncFunctionDef)):
            function = self._function(stmt)
            self.out.functions[stmt.name] = function
            self._bind(stmt.name, [stmt.lineno, "def"])
            for decorator in stmt.decorator_list:
                self._calls_in(decorator)
        elif isinstance(stmt, ClassDef):
            self._bind(stmt.name, [stmt.lineno, "class", *shape_properties(stmt)])  # (Index.class_properties)
            self._methods(stmt)
        elif isinstance(stmt, (Assign, AnnAssign)):
            value = stmt.value
            targets = stmt.targets if isinstance(stmt, Assign) else [stmt.target]
            if value is not None:
                self._calls_in(value)
            for target in targets:
                if isinstance(target, Name):
                    self._bind(target.id, self._binding(target.id, value, stmt.lineno))
                else:
                    for name in _names_in_target(target):
                        self._bind(name, [stmt.lineno, "other"])
        elif isinstance(stmt, (If, Try, With, For, While, AsyncFor, AsyncWith)) \
                or type(stmt).__name__ in ("TryStar", "Match"):
            loop = isinstance(stmt, (For, While, AsyncFor))
            for name, node in ast.iter_fields(stmt):
                if name in ("body", "orelse", "finalbody", "handlers", "cases"):
                    for child in node:
                        if isinstance(child, (ExceptHandler,)) or type(child).__name__ == "match_case":
                            self._block(child.body)
                        else:
                            self._statement_in_loop(child, loop)
                elif isinstance(node, ast.expr):
                    self._calls_in(node, in_loop=loop)
            if isinstance(stmt, (For, AsyncFor)):
                for name in _names_in_target(stmt.target):
                    self._bind(name, [stmt.lineno, "other"])
            elif isinstance(stmt, (With, AsyncWith)):
                for item in stmt.items:
                    for name in _names_in_target(item.optional_vars) if item.optional_vars is not None else ():
                        self._bind(name, [stmt.lineno, "other"])
        else:
            for child in children(stmt):
                if isinstance(child, ast.expr):
                    self._calls_in(child)
            for name in _assigned_names(stmt):
                self._bind(name, [stmt.lineno, "other"])

    def _statement_in_loop(self, stmt: ast.stmt, loop: bool) -> None:
        if not loop:
            self._statement(stmt)
            return
        before = len(self.out.calls)
        self._statement(stmt)
        for call in self.out.calls[before:]:
            call.in_loop = True

    def _bind(self, name: str, binding: list) -> None:
        self.out.bindings.setdefault(name, []).append(binding)

    def _binding(self, name: str, value: ast.expr | None, line: int) -> list:
        if value is None:
            return [line, "other"]
        if isinstance(value, CallNode):
            application = self._jit_application(value)
            if application is not None:
                api, framework, static, wrapped = application
                if isinstance(wrapped, CallNode):  # jax.jit(make(meta)): the factory's result is jitted
                    target = self._target(wrapped.func)
                    return [line, "jit", api, framework, static, target or "", "factory"]
                target = self._target(wrapped)
                return [line, "jit", api, framework, static, target or "", "function"]
            target = self._target(value.func)
            if target is not None:
                return [line, "call", target]
        elif isinstance(value, (Name, Attribute)):
            target = self._target(value)
            if target is not None:
                return [line, "alias", target]
        return [line, "other"]

    # -- imports -------------------------------------------------------------------------------
    def _import(self, node: Import | ImportFrom, record: bool) -> None:
        if isinstance(node, Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                target = alias.name if alias.asname else local
                self.imported.setdefault(local, set()).add(target)
                if record:
                    self.targets[local] = target
                    self._bind(local, [node.lineno, "import", target])
            return
        base = self._absolute(node.module, node.level)
        if base is None:
            return
        for alias in node.names:
            if alias.name == "*":
                if record:
                    self.out.stars.append(base)
                continue
            local = alias.asname or alias.name
            target = f"{base}.{alias.name}" if base else alias.name
            self.imported.setdefault(local, set()).add(target)
            if record:
                self.targets[local] = target
                self._bind(local, [node.lineno, "import", target])

    def _absolute(self, module: str | None, level: int) -> str | None:
        return absolute_module(module, level, self.package)  # (as the per-file analyses read it: analysis/aliases.py)

    # -- names ---------------------------------------------------------------------------------
    def _target(self, node: ast.expr, local: set[str] = frozenset()) -> str | None:
        """The absolute dotted name a Name/Attribute chain denotes through module-level bindings (its
        root is looked up first: most chains read a local, and need no name)."""
        root = node
        while type(root) is Attribute:
            root = root.value
        if type(root) is not Name or root.id in local:
            return None
        name = root.id
        if name in self.module_names:  # resolved by the index through the bindings, flow-sensitively
            base = f"{self.out.module}.{name}"
        elif name in self.targets:
            base = self.targets[name]
        elif self.out.stars and name not in _BUILTINS:  # may come from a `*` import: the index looks there
            base = f"{self.out.module}.{name}"
        else:
            return None
        if node is root:
            return base
        parts = []
        while node is not root:
            parts.append(node.attr)
            node = node.value
        parts.append(base)
        parts.reverse()
        return ".".join(parts)

    def _external(self, func: ast.expr) -> bool:
        """A use of a framework this module is not part of: no fact of the project can be about it, so
        it is not recorded (most calls in array code are such calls). The standard library is not
        assumed: a project may have a `statistics.py` of its own."""
        node = func
        while type(node) is Attribute:
            node = node.value
        if type(node) is not Name or node.id not in self.targets or len(self.out.bindings.get(node.id, ())) != 1:
            return False
        top = self.targets[node.id].split(".", 1)[0]
        return top in _EXTERNAL and not self.out.module.startswith(top + ".") and self.out.module != top


    def _api(self, node: ast.expr):
        text = dotted(node)
        apis = spelled_apis(text, self.imported, self.out.stars) if text is not None else []
        return apis[0] if apis else None

    def _jit_transform(self, node: ast.expr):
        """(api, keywords) of a bare, factory (`jit_compile(auxiliary_args=...)`) or partial jit expression."""
        api = self._api(node) if isinstance(node, (Name, Attribute)) else None
        if api is not None:
            return (api, []) if api.kind is Kind.JIT else None
        if isinstance(node, CallNode) and isinstance(node.func, (Name, Attribute)):
            api = self._api(node.func)
            if api is not None and api.kind is Kind.PARTIAL and node.args:
                inner = self._api(node.args[0]) if isinstance(node.args[0], (Name, Attribute)) else None
                return (inner, node.keywords) if inner is not None and inner.kind is Kind.JIT else None
            if api is not None and api.kind is Kind.JIT and not node.args:
                return api, node.keywords
        return None

    def _jit_application(self, call: CallNode):
        """(api name, framework, keywords, wrapped expression) of `jax.jit(f, ...)` / `jit_compile(**kw)(f)`."""
        if not call.args or isinstance(call.args[0], Starred):
            return None
        if isinstance(call.func, (Name, Attribute)):
            api = self._api(call.func)
            if api is not None and api.kind is Kind.JIT:
                return api.name, api.framework, _static_spec(api, call.keywords), call.args[0]
            return None
        found = self._jit_transform(call.func)
        if found is not None and len(call.args) == 1:
            api, keywords = found
            return api.name, api.framework, _static_spec(api, keywords), call.args[0]
        return None

    def _maybe_jit(self, decorator: ast.expr) -> list | None:
        """Function.maybe_jit of a decorator no API of the table is spelled by: a name or attribute chain
        (`@math.jit_compile`), a call of one without positional arguments (`@jit(auxiliary_args='n')`),
        or `partial(<one>, ...)`; bound at module level (the index reads where it comes from)."""
        node, keywords = decorator, []
        if isinstance(node, CallNode):
            func = node.func
            api = self._api(func) if isinstance(func, (Name, Attribute)) else None
            if api is not None and api.kind is Kind.PARTIAL and node.args:
                node, keywords = node.args[0], node.keywords
            elif not node.args:
                node, keywords = func, node.keywords
            else:
                return None
        if not isinstance(node, (Name, Attribute)) or self._api(node) is not None:
            return None
        target = self._target(node)
        if target is None or not target.startswith(self.out.module + "."):
            return None
        return [target, _static_spec(_AnyJit, keywords)]

    # -- functions -----------------------------------------------------------------------------
    def _function(self, node: FunctionDef | AsyncFunctionDef, enclosing: frozenset = frozenset()) -> Function:
        """`enclosing`: the locals of the function a nested def is in (they shadow module-level names)."""
        a = node.args
        positional = [p.arg for p in (*a.posonlyargs, *a.args)]
        params = positional + [p.arg for p in a.kwonlyargs]
        with_default = positional[len(positional) - len(a.defaults):] if a.defaults else []
        with_default += [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
        function = Function(node.name, node.lineno, params, len(positional), with_default)
        for p in (*a.posonlyargs, *a.args, *a.kwonlyargs):
            if p.annotation is not None:
                function.annotations[p.arg] = _annotation_name(p.annotation)
        for decorator in node.decorator_list:
            found = self._jit_transform(decorator)
            if found is not None and function.jit is None:
                api, keywords = found
                static = static_from_spec(_static_spec(api, keywords), positional, params)
                if static is not None and api.name == "phiml.math.jit_compile_linear" \
                        and not any(k.arg == "auxiliary_args" for k in keywords):
                    static = sorted(set(static) | set(params[1:]))  # every parameter after the first is auxiliary
                function.jit = [api.name, api.framework, static]
            else:
                function.decorated = True
                if function.maybe_jit is None:
                    function.maybe_jit = self._maybe_jit(decorator)
        body = _Body(node, self.kids)
        for imported in body.imports:
            self._import(imported, record=False)
        body.unknown |= enclosing - body.local
        function.calls = self._recorded_calls(node, body, params, body.local | enclosing)
        self._factory(body, function)
        if not function.decorated and function.jit is None and type(node) is FunctionDef:
            callees: set[str] = set()
            if self._returns_python(body, body.local | enclosing, callees):
                function.returns_python = not callees
                function.python_if = sorted(callees)
        return function

    def _recorded_calls(self, node: ast.AST, body: "_Body", params: list[str], local: set[str]) -> list[Call]:
        """The calls of a def's body that reach a function the index may know, those through a local alias
        (`_aliases`) as calls of what it names."""
        kinds = _LocalKinds(self, body, set(params))
        aliases = _aliases(node, body, params, self.kids, lambda value: self._target(value, local) is not None)
        out = []
        for call, in_loop in body.calls:
            func = call.func
            alias = aliases.get(func.id) if type(func) is Name else None  # type: ignore[attr-defined]
            recorded = self._call(call, kinds, local, in_loop, alias)
            if recorded is not None:
                out.append(recorded)
        return out

    def _methods(self, cls: ClassDef) -> None:
        """Summary.methods: the calls each method makes that no decorator may trace (`@pytest.mark.parametrize`
        is fine; under `@jax.jit`, or a decorator that may be one, they stay uses the index cannot see into)."""
        for stmt in cls.body:
            if type(stmt) not in (FunctionDef, AsyncFunctionDef) or any(
                    self._jit_transform(d) is not None or self._maybe_jit(d) is not None
                    for d in stmt.decorator_list):  # type: ignore[attr-defined]
                continue
            a = stmt.args  # type: ignore[attr-defined]
            params = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
            body = _Body(stmt, self.kids)
            for imported in body.imports:
                self._import(imported, record=False)
            calls = self._recorded_calls(stmt, body, params, body.local)
            if calls:
                self.out.methods[f"{cls.name}.{stmt.name}"] = calls  # type: ignore[attr-defined]

    def _returns_python(self, body: "_Body", local: set[str], callees: set[str]) -> bool:
        """`Function.returns_python`: some `return` gives a value, each gives one that is a Python value
        for any arguments (`_python_valued`, `callees` collecting the calls that must give one too), and
        it is no generator or coroutine."""
        returns = body.returns
        if not returns or all(r.value is None for r in returns):
            return False
        if not all(r.value is None or self._python_valued(r.value, local, callees) for r in returns):
            return False
        return not body.suspends

    def _python_valued(self, expr: ast.expr, local: set[str], callees: set[str]) -> bool:
        """ast_flow.py calls `expr` static whatever the parameters hold (a conservative reading of it):
        literals, names not bound in the function (globals, imports: constants at trace time),
        `.shape`-like attributes, identity tests, calls it calls static by their names (`isinstance`,
        `hasattr`, `np.isscalar`: static_names.STATIC_FUNCTION_NAMES and the builtins of STATIC_CALLS),
        NumPy's, and `not`/`and`/`or`/comparisons of such values. A call of a module-level or imported
        function counts if that function returns a Python value too: its target goes into `callees`."""
        cls = type(expr)
        if cls is Constant:
            return True
        if cls is Name:
            return expr.id not in local
        if cls is Attribute:
            return expr.attr in STATIC_ATTRIBUTES or self._python_valued(expr.value, local, callees)
        if cls is BoolOp:
            return all(self._python_valued(v, local, callees) for v in expr.values)
        if cls is Tuple or cls is List or cls is Set:
            return all(self._python_valued(e, local, callees) for e in expr.elts)
        if cls is UnaryOp:
            return type(expr.op) is Not and self._python_valued(expr.operand, local, callees)
        if cls is Compare:
            return all(type(op) in (Is, IsNot) for op in expr.ops) \
                or all(self._python_valued(e, local, callees) for e in (expr.left, *expr.comparators))
        if cls is not CallNode:
            return False
        func = expr.func
        if type(func) is Name:
            if func.id in local:
                return False  # a local function: its result is what it is given
            if func.id in STATIC_FUNCTION_NAMES \
                    or func.id in STATIC_BUILTINS and func.id not in self.module_names and not self.out.stars:
                return True
            return self._python_if(func, local, callees)
        if type(func) is not Attribute:
            return False
        if func.attr in STATIC_FUNCTION_NAMES or func.attr in STATIC_METHODS:
            return True
        root = func
        while type(root) is Attribute:
            root = root.value
        if type(root) is Name and root.id not in local and bool(self.imported.get(root.id)) \
                and all(f"{q}.".startswith(STATIC_MODULES) for q in self.imported[root.id]):
            return True  # NumPy's
        return self._python_if(func, local, callees)

    def _python_if(self, func: ast.expr, local: set[str], callees: set[str]) -> bool:
        """A call of a function bound at module level (a def or an import; `helpers.is_scalar` through an
        imported module): a Python value if that function returns one, which the index tells."""
        target = self._target(func, local)
        if target is None or not target.startswith(f"{self.out.module}."):
            return False  # (a name imported inside a function: not followed)
        callees.add(target)
        return True

    def _factory(self, body: "_Body", function: Function) -> None:
        returns = body.returns
        if not returns or any(r.value is None for r in returns):
            return
        nested = body.nested
        assigned = body.values
        new, jitted = set(), set()
        for r in returns:
            value = r.value
            if isinstance(value, Name) and len(assigned.get(value.id, ())) == 1:
                value = assigned[value.id][0]
            if isinstance(value, Lambda):
                new.add("<lambda>")
            elif isinstance(value, Name) and value.id in nested:
                new.add(value.id)
                inner = nested[value.id]
                jit = next((found for d in inner.decorator_list if (found := self._jit_transform(d))), None)
                if jit is not None:
                    jitted.add((jit[0].name, jit[0].framework))
            elif isinstance(value, CallNode) and (app := self._jit_application(value)) is not None:
                jitted.add((app[0], app[1]))
                if isinstance(app[3], Name) and app[3].id in nested:
                    new.add(app[3].id)
            else:
                return
        if len(new) == 1:
            function.returns_new_function = next(iter(new))
        if len(jitted) == 1:
            function.returns_jit = list(next(iter(jitted)))
        if function.returns_new_function in nested:
            function.nested[function.returns_new_function] = self._function(nested[function.returns_new_function],
                                                                            frozenset(body.local))

    def _call(self, call: CallNode, kinds: "_LocalKinds | None", local: set[str], in_loop: bool,
              alias: ast.expr | None = None) -> Call | None:
        """`alias`: what the local name the call is made through is bound to (`_aliases`)."""
        callee = alias if alias is not None else call.func
        target = self._target(callee, local)
        if target is None or self._external(callee):
            return None
        self.recorded_funcs.add(id(callee))
        starred = any(isinstance(a, Starred) for a in call.args) or any(k.arg is None for k in call.keywords)
        args = []
        for i, arg in enumerate(call.args):
            if isinstance(arg, Starred):
                break
            args.append([i, *_argument_kind(arg, kinds, self)])
        for keyword in call.keywords:
            if keyword.arg is not None:
                args.append([keyword.arg, *_argument_kind(keyword.value, kinds, self)])
        return Call(target, call.lineno, call.col_offset, args, in_loop, starred)

    def _calls_in(self, node: ast.AST, in_loop: bool = False) -> None:
        """The calls of a module-level expression (not inside the lambdas or defs it holds)."""
        stack = [node]
        kids = self.kids
        while stack:
            current = stack.pop()
            kind = type(current)
            if kind is CallNode:
                recorded = self._call(current, self.module_kinds, frozenset(), in_loop)
                if recorded is not None:
                    self.out.calls.append(recorded)
            elif kind is Name or kind is Constant or kind in SCOPES:
                continue  # (leaves hold no call; a def's or lambda's calls are its own)
            found = kids.get(id(current))
            stack.extend(reversed(found if found is not None else branches(current)))


class _Body:
    """One walk over a function's own body (nested defs, lambdas and classes are not entered):
    its calls (and whether each is in a loop), the names it binds and the values bound to them,
    its returns, whether it yields or awaits, and its nested defs."""

    def __init__(self, fn: ast.AST, kids: dict) -> None:
        self.calls: list[tuple[CallNode, bool]] = []
        self.values: dict[str, list] = {}  # name -> the expressions bound to it
        self.unknown: set[str] = set()  # names bound by what cannot be classified (tuple targets, `with`, ...)
        self.returns: list[Return] = []
        self.nested: dict[str, ast.AST] = {}
        self.imports: list[ast.AST] = []  # imports in the body: they count for spellings (`from jax import jit`)
        self.suspends = False  # a `yield` or an `await` of its own: a generator or a coroutine
        declared_global: set[str] = set()
        local: set[str] = set()
        if not isinstance(fn, Module):
            a = fn.args
            local |= {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
            local |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
        self._walk(fn.body, False, kids, local, declared_global)
        self.local = local - declared_global

    def _walk(self, roots: list, loop: bool, kids: dict, local: set[str], declared_global: set[str]) -> None:
        """The nodes under `roots`, in pre-order; `loop`: they are in a loop. A loop met outside one has
        its subtree walked by a call of its own, in a loop: no node carries that flag on the stack."""
        stack = roots[::-1]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in _READ:  # (the others, most nodes: attributes, operators, subscripts..., are walked through)
                if kind is CallNode:
                    self.calls.append((node, loop))
                elif kind is Assign:
                    for target in node.targets:
                        if type(target) is Name:
                            self.values.setdefault(target.id, []).append(node.value)
                            local.add(target.id)
                        else:
                            names = _names_in_target(target)
                            self.unknown.update(names)
                            local.update(names)
                elif kind is AnnAssign or kind is AugAssign:
                    if type(node.target) is Name:
                        local.add(node.target.id)
                        if node.value is not None:
                            self.values.setdefault(node.target.id, []).append(
                                node.value if kind is AnnAssign else BinOp(node.target, Add(), node.value))
                elif kind is For or kind is AsyncFor or kind is ast.comprehension:
                    names = _names_in_target(node.target)
                    local.update(names)
                    iterable = node.iter
                    if type(iterable) is CallNode and type(iterable.func) is Name and iterable.func.id == "range":
                        for name in names:
                            self.values.setdefault(name, []).append(_A_PYTHON_VALUE)
                    else:
                        self.unknown.update(names)
                elif kind is With or kind is AsyncWith:
                    for item in node.items:
                        if item.optional_vars is not None:
                            names = _names_in_target(item.optional_vars)
                            self.unknown.update(names)
                            local.update(names)
                elif kind is NamedExpr:
                    self.values.setdefault(node.target.id, []).append(node.value)
                    local.add(node.target.id)
                elif kind is Return:
                    self.returns.append(node)
                elif kind is Yield or kind is YieldFrom or kind is Await:
                    self.suspends = True
                elif kind is Global:
                    declared_global.update(node.names)
                elif kind is Import or kind is ImportFrom:
                    self.imports.append(node)
                    names = _assigned_names(node)
                    self.unknown.update(names)
                    local.update(names)
                elif kind is ExceptHandler and node.name:
                    self.unknown.add(node.name)
                    local.add(node.name)
                if kind is FunctionDef or kind is AsyncFunctionDef or kind is ClassDef:
                    self.unknown.add(node.name)
                    local.add(node.name)
                    if kind is not ClassDef:
                        self.nested[node.name] = node
                    continue
                if kind is Lambda:
                    continue
            # Its branches (ast_names.branches, read from `kids` where the module's walk kept them), less the
            # names and constants: nothing is ever found in them.
            found = kids.get(id(node))
            inner = [child for child in (found if found is not None else branches(node))
                     if type(child) is not Name and type(child) is not Constant]
            if not loop and kind in LOOPS:
                self._walk(inner, True, kids, local, declared_global)
            else:
                inner.reverse()
                stack.extend(inner)


def _aliases(fn: ast.AST, body: "_Body", params: list[str], kids: dict, resolves) -> dict[str, ast.expr]:
    """The local names bound once, to a name or attribute chain (`sample = sampler_jit`), that are only ever
    called: their calls are calls of what that denotes (a module-level function), and the read of it is no
    use the index cannot see into. Only a chain that `resolves` (through module-level bindings: `_target`)
    can be such a function; the others (`n = x.shape`, `f = self.step`) are not looked for. The walk reads
    each node's branches from `kids` (the module walk's), nested defs included."""
    candidates = {name: values[0] for name, values in body.values.items()
                  if len(values) == 1 and type(values[0]) in (Name, Attribute) and name not in body.unknown
                  and name not in params and resolves(values[0])}
    if not candidates:
        return {}
    callees: set[int] = set()
    reads: dict[str, list[Name]] = {}
    stack: list = [fn]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is Name:
            if node.id in candidates and type(node.ctx) is Load:  # type: ignore[attr-defined]
                reads.setdefault(node.id, []).append(node)  # type: ignore[attr-defined, arg-type]
            continue
        if kind is CallNode:
            callees.add(id(node.func))  # type: ignore[attr-defined]
        found = kids.get(id(node))
        stack.extend(found if found is not None else branches(node))
    return {name: value for name, value in candidates.items()
            if reads.get(name) and all(id(read) in callees for read in reads[name])}


# The node classes `_Body` reads something of (the others it only walks through).
_READ = frozenset({CallNode, Assign, AnnAssign, AugAssign, For, AsyncFor, ast.comprehension,
                   With, AsyncWith, NamedExpr, Return, Global, Import, ImportFrom,
                   ExceptHandler, FunctionDef, AsyncFunctionDef, ClassDef, Lambda, Yield,
                   YieldFrom, Await})


_A_PYTHON_VALUE = Constant(None)


class _LocalKinds:
    """Kinds of a function's local names. A name bound once has the kind of its value; a name bound
    more than once (or by a loop, a tuple target, `with`...) is unknown: without the order of the
    bindings, a join could call a static value traced."""

    def __init__(self, reader: _Reader, body: _Body, params: set[str]) -> None:
        self.reader = reader
        self.params = params
        self.values = body.values
        self.unknown = body.unknown
        self._resolving: set[str] = set()
        self._memo: dict[str, list] = {}

    def name(self, name: str) -> list:
        if name in self._memo:
            return self._memo[name]
        if name in self.params and name not in self.values:
            return [PARAMS, [name]]
        if name in self.unknown or name in self._resolving:
            return [UNKNOWN, None]
        if name not in self.values:
            if name in self.reader.module_literals:
                return [PYTHON, self.reader.module_literals[name]]
            return [UNKNOWN, None]
        values = self.values[name]
        if len(values) != 1 or name in self.params:
            out = [PYTHON, None] if all(v is _A_PYTHON_VALUE for v in values) and name not in self.params else [UNKNOWN, None]
            self._memo[name] = out
            return out
        self._resolving.add(name)
        out = _kind(values[0], self, self.reader)
        self._resolving.discard(name)
        self._memo[name] = out
        return out


def _argument_kind(node: ast.expr, kinds: _LocalKinds | None, reader: _Reader) -> list:
    """_kind of a call's argument, [NONE, None] for the literal `None`."""
    if type(node) is Constant and node.value is None:  # type: ignore[attr-defined]
        return [NONE, None]
    return _kind(node, kinds, reader)


def _kind(node: ast.expr, kinds: _LocalKinds | None, reader: _Reader) -> list:
    """[PYTHON, literal or None] | [ARRAY, None] | [PARAMS, names] | [UNKNOWN, None]."""
    kind = type(node)
    if kind is Constant:
        return [PYTHON, node.value if isinstance(node.value, _JSON_LITERALS) else None]
    if kind is Name:
        if kinds is not None:
            return kinds.name(node.id)
        if node.id in reader.module_literals:
            return [PYTHON, reader.module_literals[node.id]]
        return [UNKNOWN, None]
    if kind in (Tuple, List, UnaryOp, Set, Dict):
        try:
            value = literal_value(node)
            return [PYTHON, value if isinstance(value, _JSON_LITERALS) else None]
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
    if kind is Attribute:
        if node.attr in STATIC_ATTRIBUTES:
            return [PYTHON, None]
        if node.attr not in TENSOR_ATTRIBUTES:  # a traced container's field may be a static one
            return [PYTHON, None] if _kind(node.value, kinds, reader)[0] == PYTHON else [UNKNOWN, None]
        return _kind(node.value, kinds, reader)
    if kind is Subscript and type(node.value) is Attribute and node.value.attr == "shape":
        return [PYTHON, None]
    if kind is Compare and all(type(op) in (Is, IsNot) for op in node.ops):
        return [PYTHON, None]  # `x is None`: a Python bool whatever `x` is
    if kind is CallNode:
        return _call_kind(node, kinds, reader)
    if kind in (BinOp, UnaryOp, Compare, BoolOp, Subscript, Tuple, List):
        return _combined([_kind(child, kinds, reader) for child in children(node) if isinstance(child, ast.expr)])
    return [UNKNOWN, None]


def _call_kind(node: CallNode, kinds: _LocalKinds | None, reader: _Reader) -> list:
    """Python built-ins and shape/dtype questions give Python values; an array library's call gives an
    array, derived from the parameters its arguments derive from; anything else is unknown."""
    func = node.func
    if type(func) is Name and func.id in _PYTHON_CALLS and func.id not in reader.module_names:
        return [PYTHON, None]
    text = dotted(func)
    if text is None:
        return [UNKNOWN, None]
    root, _, rest = text.partition(".")
    absolute = {f"{t}.{rest}" if rest else t for t in reader.imported.get(root, ())}
    if not absolute or not all(a.startswith(_ARRAY_ROOTS) for a in absolute):
        return [UNKNOWN, None]
    if absolute & STATIC_CALLS or text.rsplit(".", 1)[-1] in STATIC_FUNCTION_NAMES:
        return [PYTHON, None]
    parts = [_kind(a, kinds, reader) for a in node.args if type(a) is not Starred]
    parts += [_kind(k.value, kinds, reader) for k in node.keywords if k.arg is not None]
    combined = _combined(parts)
    return [ARRAY, None] if combined[0] == PYTHON else combined


def _combined(parts: list) -> list:
    """The kind of a value computed from `parts`: derived from parameters if any part is."""
    tags = {p[0] for p in parts}
    if tags <= {PYTHON}:
        return [PYTHON, None]
    if UNKNOWN in tags:
        return [UNKNOWN, None]
    if PARAMS in tags:
        return [PARAMS, sorted({n for p in parts if p[0] == PARAMS for n in p[1]})]
    return [ARRAY, None]


class _AnyJit:
    """The static keywords of every jit transform of the table: a decorator's that may be one (Function.maybe_jit)."""

    static_keywords = ("auxiliary_args", "static_argnums", "static_argnames")


def _static_spec(api, keywords) -> dict | None:
    """{static_argnums/static_argnames/auxiliary_args: value} as the transform is given them; None when
    that cannot be read (`**kwargs`, a value that is not a literal)."""
    found: dict = {}
    for keyword in keywords:
        if keyword.arg is None:
            return None
        if keyword.arg in api.static_keywords:
            try:
                value = literal_value(keyword.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return None
            if isinstance(value, (set, frozenset)):  # jax accepts a set of names or numbers
                value = sorted(value, key=repr)
            if not _plain(value):
                return None  # bytes, complex...: unreadable (and not JSON for the cache)
            found[keyword.arg] = value
    return found


def _plain(value) -> bool:
    """A value JSON keeps as it is: a str, an int, or a list/tuple of them."""
    if isinstance(value, (list, tuple)):
        return all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value)
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def static_from_spec(spec: dict | None, positional: list, params: list) -> list | None:
    """Parameter names from {static_argnums/static_argnames/auxiliary_args: value}; None when unreadable."""
    if spec is None:
        return None
    static: set[str] = set()
    for keyword, value in spec.items():
        if keyword == "auxiliary_args":
            if not isinstance(value, str):
                return None
            static |= {s.strip() for s in value.split(",") if s.strip()}
        elif keyword == "static_argnums":
            for i in value if isinstance(value, (tuple, list)) else (value,):
                if not isinstance(i, int) or not -len(positional) <= i < len(positional):
                    return None
                static.add(positional[i])
        elif keyword == "static_argnames":
            values = value if isinstance(value, (tuple, list)) else (value,)
            if not all(isinstance(v, str) for v in values):
                return None
            static |= set(values)
    return sorted(static)


# -- small helpers ------------------------------------------------------------------------------


def _globals_and_loads(tree: Module, kids: dict, met: Met) -> tuple[set[str], list]:
    """Names some function declares `global`, and every Name/Attribute read (outermost of a chain), in
    `ast.walk`'s order (breadth first, over `ast_names.branches`: no generator per node, and no
    children asked of a name or a constant: they have none). Each node's branches go into `kids`, and
    what the pre-filter reads of the nodes into `met`: the one walk that meets every node computes
    them for the others."""
    declared: set[str] = set()
    loads, add_name, mark, marked = met.loads, met.names.add, met.marked.append, Met.MARKED
    inner: set[int] = set()
    queue: list = [tree]
    i = 0
    while i < len(queue):
        node = queue[i]
        i += 1
        kind = type(node)
        if kind is Name:
            add_name(node.id)
            if type(node.ctx) is Load and id(node) not in inner:
                loads.append(node)
            continue
        if kind is Constant:
            continue
        found = kids[id(node)] = branches(node)
        queue.extend(found)
        if kind is Attribute:
            mark(node)
            if id(node) not in inner and type(node.ctx) is Load:
                loads.append(node)
            inner.add(id(node.value))
        elif kind in marked:
            mark(node)
        elif kind is Global:
            declared.update(node.names)
    return declared, loads


# The nodes `literal_value` (`ast.literal_eval`) may accept at the top (`set()` is a call, `1+2j` an operation).
_MAYBE_LITERAL = frozenset({Constant, Tuple, List, Set, Dict, CallNode, UnaryOp, BinOp})


def _annotation_name(node: ast.expr) -> str:
    """`int` for `int`, `Shape` for `math.Shape`, `Literal` for `Literal['a']`, a string annotation's text."""
    if type(node) is Subscript:
        node = node.value
    if type(node) is Constant and isinstance(node.value, str):
        return node.value.rsplit(".", 1)[-1]
    if type(node) is Attribute:
        return node.attr
    return node.id if type(node) is Name else ""


def _assigned_names(stmt: ast.AST) -> list[str]:
    if isinstance(stmt, Assign):
        return [n for t in stmt.targets for n in _names_in_target(t)]
    if isinstance(stmt, (AnnAssign, AugAssign)):
        return _names_in_target(stmt.target)
    if isinstance(stmt, (FunctionDef, AsyncFunctionDef, ClassDef)):
        return [stmt.name]
    if isinstance(stmt, Import):
        return [a.asname or a.name.split(".")[0] for a in stmt.names]
    if isinstance(stmt, ImportFrom):
        return [a.asname or a.name for a in stmt.names if a.name != "*"]
    if isinstance(stmt, (For, AsyncFor)):
        return _names_in_target(stmt.target)
    return []


def _names_in_target(target: ast.AST) -> list[str]:
    if isinstance(target, Name):
        return [target.id]
    if isinstance(target, (Tuple, List)):
        return [n for e in target.elts for n in _names_in_target(e)]
    if isinstance(target, Starred):
        return _names_in_target(target.value)
    return []
