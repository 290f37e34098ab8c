"""May a value inside a traced function be a tracer? A cheap, conservative reading of ast_flow.py on
CPython's `ast`, for the pre-filter.

ast_flow.py (on libcst) decides which conditions and trip counts are tracers. Its sources are few: the
parameters of traced functions, names declared `global`/`nonlocal`, jax operations (staged out under
jit even for constant arguments) and what helpers of the module return. Everything else is a Python
value at trace time. This module answers the weaker question "may it be?" from the same sources,
flow-insensitively (a name is tainted if any of its bindings may be), and keeps only the rules that
make a value static by construction that need no resolution: identity and string comparisons,
`.shape`-like attributes, `len()`/`isinstance()` and the other names static_names.py lists,
`isinstance` narrowing, `zip`/`enumerate` element-wise, tuple targets part by part (`_Part`), and
the length and truth of a list, tuple, set or dict every binding of a name builds (`containers`).
`Flows` follows ast_flow.py across functions: which parameters a jit transform may trace (its static
arguments as written), which a helper's call sites may pass a tracer; a def nested in its caller is
read with the caller's names, and a function nested in one no flow reaches reads none of its names
(`Function.closure`). So it says "maybe" wherever ast_flow.py could say traced or unknown, and "no"
only where ast_flow.py says static: a rule gated on it sees every file it could report in.

Two more readings serve the gates. `Module.parameters_only` reads taint from parameters alone (PML204
asks what derives from configuration parameters; ast_flow.py gives jax operations, helpers' results and
globals no sources). The must side (`must_names`, `must_at`, `_must`) says where ast_flow.py certainly
sees a tracer: iterating one has a static trip count, which "maybe" alone cannot tell from iterating an
unknown value; its sources are the parameters jax's jit certainly traces and what certainly evaluated
calls certainly pass a helper (`Flows._must_helpers`).

tests/test_ast_ast_flow.py checks all of it on every condition, trip count and configuration value of the
golden cases and examples; the throughput corpora (1,257 files) were checked the same way, alone and
with the project index's facts, and compared finding for finding.
"""
from __future__ import annotations

import ast
from ast import (And, AnnAssign, Assign, AsyncFor, AsyncFunctionDef, AsyncWith, Attribute, AugAssign, Await, BinOp, BoolOp, Call,
                 ClassDef, Compare, Constant, Dict, DictComp, ExceptHandler, Expr, For, FunctionDef, GeneratorExp, Global, If,
                 IfExp, Import, ImportFrom, Is, IsNot, JoinedStr, Lambda, List, ListComp, Load, Name, NamedExpr, Nonlocal, Not,
                 Return, Set, SetComp, Starred, Store, Subscript, Try, Tuple, UAdd, USub, UnaryOp, While, With, Yield, YieldFrom)
from functools import cached_property

from .ast_names import branches, dotted, literal_value, statements
from .annotations import is_python_value, static_fields
from .aliases import NO_ALIASES, Aliases, absolute_name, spelled_module
from .apis import canonical
from .installed import is_type_predicate
from .installed import static_fields as installed_static_fields
from .static_names import (JAX_PRIMITIVES, JAX_SHAPE_NAMES, JAX_STAGED, PHIML_STATIC_ANNOTATIONS, PYTHON_CALLS, PYTHON_SCALAR_ANNOTATIONS,
                           PYTREE_LISTS, STATIC_ATTRIBUTES, STATIC_BUILTINS, STATIC_CALLS, TENSOR_ATTRIBUTES, STATIC_FUNCTION_NAMES, STATIC_METHODS, STATIC_MODULES, STORING,
                           STRUCTURE_KEEPING, is_dtype_parameter, size_arguments)

_FUNCTIONS = (FunctionDef, AsyncFunctionDef, Lambda)
_FUNCTION_KINDS = frozenset(_FUNCTIONS)  # (a type test: a missed isinstance asks each class, and `__class__`)
_NESTED = (FunctionDef, AsyncFunctionDef, Lambda, ClassDef)
_COMPREHENSIONS = (ListComp, SetComp, DictComp, GeneratorExp)
# What builds a list, tuple, set or dict (trace_values.Value.container; not a generator, whose loops run on iterating it).
_CONTAINERS = frozenset({List, Tuple, Set, Dict, ListComp, SetComp, DictComp})
# jax's loop and branch primitives, by last name.
_PRIMITIVES = frozenset(q.rsplit(".", 1)[1] for q in JAX_PRIMITIVES)
# The most functions a file's flows may have for helpers' certain parameters to be read: ast_flow.py's
# analysis stops after 50 contexts (a helper is analysed again whenever its call sites pass more).
HELPER_EVIDENCE_LIMIT = 20
# A literal trip count from which PML206 reports a loop (unrolled_loop.MIN_ITERATIONS).
MIN_ITERATIONS = 50


class Module:
    """What the evaluator needs of the whole file: how names are imported, and what the module binds."""

    def __init__(self, tree: ast.Module, imported: dict[str, set[str]], stars: list[str], package: str = "",
                 aliases: Aliases = NO_ALIASES) -> None:
        self.imported, self.stars = imported, stars
        # The package relative imports start from and the project's re-exports (analysis/aliases.py): names
        # read as the name resolver reads them (ast_resolver.py)
        self.package, self.aliases = package, aliases
        # Read taint from parameters alone: jax operations, helpers' results and globals are no
        # sources (PML204 asks what derives from configuration parameters: ast_flow.py gives those no
        # sources).
        self.parameters_only = False
        self.defs: set[str] = set()  # module-level defs: a call may return what a jax operation gave
        self.bound: set[str] = set()  # every other module-level binding (`jnp = jax.numpy`, `len = ...`)
        self.class_names: set[str] = set()  # ... of them, those a class statement binds
        assigned: set[str] = set()  # ... and those something else binds
        self.classes = {stmt.name: stmt for stmt in tree.body if isinstance(stmt, ClassDef)}  # ast_flow.TracedAnalysis._static_fields
        # The defs directly in the module's body, by name: helpers whose results ast_flow.TracedAnalysis.returns_of reads.
        self.direct_defs = {stmt.name: stmt for stmt in tree.body if isinstance(stmt, (FunctionDef, AsyncFunctionDef))}
        self.def_count: dict[str, int] = {}
        self.function_of = None  # def -> its Function (the pre-filter's); None: helpers' results are not read
        self.returning: list[int] = []  # the helpers whose results are being read (ast_flow.TracedAnalysis.returns_of's stack)
        # What module-level imports bind, spelled as the scope analysis spells it (`._misc.is_sde`)
        self.module_imports: dict[str, set[str]] = {}
        for stmt in _module_statements(tree):
            if isinstance(stmt, (Import, ImportFrom)):
                self._import(stmt)
            if isinstance(stmt, (FunctionDef, AsyncFunctionDef)):
                self.defs.add(stmt.name)
                self.def_count[stmt.name] = self.def_count.get(stmt.name, 0) + 1
            elif isinstance(stmt, ClassDef):
                self.bound.add(stmt.name)
                self.class_names.add(stmt.name)
            elif not isinstance(stmt, (Import, ImportFrom)):
                for node in _walk_expression(stmt):
                    if isinstance(node, Name) and isinstance(node.ctx, Store):
                        self.bound.add(node.id)
                        assigned.add(node.id)
        for stmt in statements(tree):
            if isinstance(stmt, Global):  # a function may bind a module name
                self.bound.update(stmt.names)
                assigned.update(stmt.names)
        # Names only classes of the module bind: their attributes are the classes' own, never jax's.
        self.only_classes = frozenset(self.class_names - assigned - set(imported) - self.defs)

    def staged(self, func: ast.AST) -> bool:
        """`func` may denote a jax operation (a tracer under jit whatever its arguments), or the name
        cannot be told apart from one (a `*` import)."""
        text = dotted(func)
        if text is None:
            return False
        head, _, rest = text.partition(".")
        if head in self.imported:  # ast_flow._Flow._staged: every name it may denote is under jax.numpy, jax.lax, ...
            return any(canonical(self.aliases.realias(full + "." + rest if rest else full)).startswith(JAX_STAGED)
                       for full in self.imported[head])
        # A name the module binds otherwise (`zip, unsafe_zip = safe_zip, zip`, `jnp = jax.numpy`) is a
        # local to the scope analysis: its qualified name is its own spelling (scopes.Assignment), an
        # alias is not followed, so it is staged only when spelled as a jax operation.
        return bool(self.stars) or head in self.bound and head not in self.only_classes \
            and canonical(text).startswith(JAX_STAGED)

    def _import(self, stmt: Import | ImportFrom) -> None:
        if isinstance(stmt, Import):
            for alias in stmt.names:
                local = alias.asname or alias.name.split(".")[0]
                self.module_imports.setdefault(local, set()).add(alias.name if alias.asname else local)
            return
        module = spelled_module(stmt.module, stmt.level or 0, self.package)
        for alias in stmt.names:
            if alias.name != "*":
                real = f"{module}{alias.name}" if module.endswith(".") else f"{module}.{alias.name}" if module else alias.name
                self.module_imports.setdefault(alias.asname or alias.name, set()).add(real)

    def qualified(self, func: ast.AST) -> set[str]:
        """What a module-level name or attribute chain denotes through the module's own imports, a
        subset of what the scope analysis answers there (`jtu.tree_leaves` -> `jax.tree_util.tree_leaves`),
        read as the name resolver reads it (relative imports absolute, through the project's re-exports)."""
        text = dotted(func)
        if text is None:
            return set()
        head, _, rest = text.partition(".")
        return {canonical(self.aliases.realias(absolute_name(full + ("." + rest if rest else ""), self.package)))
                for full in self.module_imports.get(head, ())}

    def static_fields(self, annotation: ast.AST | None) -> frozenset[str]:
        """ast_flow.TracedAnalysis._static_fields: the Python-valued fields of the value class a parameter is declared
        as (an installed one through the module's imports, or a class at the module's top level)."""
        if not isinstance(annotation, (Name, Attribute)):
            return frozenset()
        fields: set[str] = set()
        for qualified in self.qualified(annotation):
            fields |= installed_static_fields(qualified)
        if isinstance(annotation, Name) and annotation.id in self.classes:
            fields |= set(static_fields(self.classes[annotation.id]))
        return frozenset(fields)

    def static_callee(self, func: ast.AST) -> bool:
        """ast_flow.py's static calls by qualified name: an installed type predicate (`diffrax.is_sde`),
        `static_names.STATIC_CALLS`, or (every name it may denote) NumPy's."""
        found = self.qualified(func)
        if not found:
            return False
        if any(map(is_type_predicate, found)) or not found.isdisjoint(STATIC_CALLS):
            return True  # any of the names suffices, as in ast_flow.py
        head = dotted(func).split(".", 1)[0]
        return head not in self.bound and head not in self.defs and not self.stars \
            and all(q.startswith(STATIC_MODULES) for q in found)

    def helper(self, name: str) -> "Function | None":
        """The one plain def `name` denotes at module level, whose result ast_flow.TracedAnalysis.returns_of reads (None:
        not readable so: several defs, another binding, a `*` import)."""
        node = self.direct_defs.get(name)
        if node is None or self.function_of is None or self.def_count.get(name) != 1 or name in self.bound \
                or name in self.imported or self.stars or isinstance(node, AsyncFunctionDef):
            return None
        return self.function_of(node)

    def builtin(self, name: str) -> bool:
        """`name` is Python's builtin here: neither bound by the module nor possibly star-imported."""
        return name not in self.imported and name not in self.bound and name not in self.defs and not self.stars


class Function:
    """One function's own body (nested functions are their own `Function`): its bindings, its tests
    and what it writes, read in one walk."""

    def __init__(self, node: ast.AST, outer: "Function | None", module: Module) -> None:
        self.node, self.outer, self.module = node, outer, module
        args = node.args
        self.params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        self.packed = {a.arg for a in (args.vararg, args.kwarg) if a is not None}  # `*args`, `**kwargs`
        self.params |= self.packed
        self.maybe_params: frozenset[str] = frozenset(self.params)
        # The names of the function around it may hold tracers here: ast_flow.TracedAnalysis._closure reads them only from
        # a function it analyses (`Flows` clears it for a function whose outer one no flow reaches)
        self.closure = True
        self.fields: dict[str, frozenset[str]] = {}  # parameter -> Python-valued fields (filter_jit roots: Flows)
        self._memo: tuple | None = None
        self._taint: frozenset[str] = frozenset()
        self.receivers: list[tuple[str, tuple]] = []  # (name, arguments) of method calls on a bare name
        self.calls: list[Call] = []  # every call of its own body
        self.name_calls: list[Call] = []  # calls of a bare name: helpers it may pass tracers to
        self.bodies: list[ast.AST] = []  # names and lambdas handed to a jax loop or branch primitive
        self.local: set[str] = set(self.params)  # names bound here outside comprehensions
        self.bound: set[str] = set(self.params)  # every name bound here
        self.env: set[str] = set(self.params)  # ... except by an import: the names ast_flow.py keeps values of
        self.declared: set[str] = set()  # global / nonlocal
        self.bindings: list[tuple[tuple[str, ...], tuple[ast.AST, ...]]] = []  # names <- any of the expressions
        self.tests: list[tuple[ast.AST, frozenset[str]]] = []  # conditions and loop iterables, with the names proven static there
        self.loops: list[For] = []
        self.iterables: set[int] = set()  # the tests that are loops' iterables (their trip counts)
        self.stores: list[str] = []  # base names written into (`x.a = v`, `x[i] = v`, `x.append(v)`)
        self.prints: list[Call] = []
        self.outside_stores: list[str] = []  # stores inside comprehensions (their own scope)
        self.defaults: dict[str, int] = {}  # parameters with an int literal default
        self.returns: list[ast.expr] = []  # what its `return`s give
        # What each name is bound to, for `must`: ("one", value) / ("any", values: `n += x`), or None
        # where ast_flow.py's value is not one `must` can read (an import, an unpacked literal, ...).
        self.must_binds: dict[str, list[tuple[tuple[str, tuple] | None, tuple[int, int]]]] = {}
        self.must_params: frozenset[str] = frozenset()  # parameters ast_flow.py certainly calls TRACED (Flows)
        self._must_memo: tuple | None = None
        self.yields = False  # a generator (or coroutine): ast_flow.TracedAnalysis.returns_of does not read its result
        # How many bindings each name has here, and how many of them are `name = <a display or comprehension>`
        # (also `+=`, `: T =`); names some method other than `append`-like is called on with arguments:
        # what `containers` reads.
        self._binds: dict[str, int] = {}
        self._container_binds: dict[str, int] = {}
        self._unkept: set[str] = set()
        self.nested_defs: dict[str, list[ast.AST]] = {}  # defs directly in its body, by name
        self._returns_memo: dict[tuple[frozenset[str], int | None, bool], bool] = {}
        positional = [*args.posonlyargs, *args.args]
        for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults):
            self._default(a.arg, d)
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            self._default(a.arg, d)
        self._read([node.body] if isinstance(node, Lambda) else node.body)

    def _default(self, name: str, value) -> None:
        if isinstance(value, Constant) and type(value.value) is int:
            self.defaults[name] = value.value

    def _read(self, roots: list) -> None:
        stack = [(root, _NONE) for root in roots]  # (node, names an enclosing `isinstance` test proves Python values)
        while stack:
            node, narrowed = stack.pop()
            if isinstance(node, list):
                stack.extend((item, narrowed) for item in node)
                continue
            cls = type(node)
            if cls is If:  # its body sees the names `isinstance(i, int)` proves static (ast_flow._narrowed)
                self.tests.append((node.test, narrowed))
                proven = frozenset(narrowed_by(node.test)) - _stored_in(node.body)
                stack += [(node.test, narrowed), (node.body, narrowed | proven), (node.orelse, narrowed)]
                continue
            if cls in (While, IfExp):
                self.tests.append((node.test, narrowed))
            elif cls in (For, AsyncFor):
                self.tests.append((node.iter, narrowed))
                self.iterables.add(id(node.iter))
                self.loops.append(node)
                self._bind_element(node.target, node.iter)
                self._must_element(node.target, node.iter)
            elif cls is Assign:
                for target in node.targets:
                    self._bind_assigned(target, node.value)
                    self._must_bind(target, node.value)
                    self._note_container(target, node.value)
            elif cls is AugAssign:
                self._bind(node.target, (node.target, node.value))
                self._note_container(node.target, node.value)
                if type(node.target) is Name:
                    self._must_record(node.target.id, ("any", (node.target, node.value)), node)
            elif cls is AnnAssign:
                self._bind(node.target, (node.value,) if node.value is not None else ())
                if node.value is not None:
                    self._must_bind(node.target, node.value)
                    self._note_container(node.target, node.value)
            elif cls is NamedExpr:
                self._bind(node.target, (node.value,))
                self._must_bind(node.target, node.value)
            elif cls in (With, AsyncWith):
                for item in node.items:
                    if item.optional_vars is not None:
                        self._bind(item.optional_vars, (item.context_expr,))
                        self._must_bind(item.optional_vars, item.context_expr, unpack=False)
            elif cls is ast.comprehension:
                self._bind_element(node.target, node.iter, local=False)
                self._must_unknown(node.target)  # (its own scope: not followed)
            elif cls in (Global, Nonlocal):
                self.declared.update(node.names)
            elif cls in (Import, ImportFrom):
                for alias in node.names:  # bound, but not a value ast_flow.py follows (its env skips imports)
                    self.bound.add((alias.asname or alias.name).split(".")[0])
                    self._binds[(alias.asname or alias.name).split(".")[0]] = -1  # (never a container here)
                    self._must_record((alias.asname or alias.name).split(".")[0], None, node)
            elif cls is ExceptHandler and node.name:
                self._bind_name(node.name, ())
                self._must_record(node.name, None, node)
            elif cls is Call:
                self._call(node)
            elif cls is Return:
                if node.value is not None:
                    self.returns.append(node.value)
            elif cls in (Yield, YieldFrom, Await):
                self.yields = True
            elif cls in _COMPREHENSIONS:  # a store there may reach a local of this function: counted as outside
                self.outside_stores.extend(c.func.value.id for c in _walk_expression(node) if type(c) is Call
                                           and isinstance(c.func, Attribute) and c.func.attr in STORING
                                           and isinstance(c.func.value, Name))
            if cls in _NESTED:
                if cls is not Lambda:
                    self._bind_name(node.name, ())
                    if cls is not ClassDef:
                        self.nested_defs.setdefault(node.name, []).append(node)
                    self._must_record(node.name, None, node)
                    stack.extend((d, narrowed) for d in node.decorator_list)
                if cls is not ClassDef:
                    stack.extend((d, narrowed) for d in node.args.defaults)
                    stack.extend((d, narrowed) for d in node.args.kw_defaults if d is not None)
                continue  # its body is its own Function
            stack.extend([(child, narrowed) for child in branches(node)])

    def _bind_assigned(self, target: ast.AST, value: ast.AST) -> None:
        """`target = value`, a tuple target element by element as ast_flow._Flow.bind does: each element
        gets its `_Part` of the value (the part of a tuple literal, of a module helper's returned tuple,
        a tree definition); a starred target gets the whole value."""
        if type(target) in (Tuple, List) and not any(type(e) is Starred for e in target.elts):
            size = len(target.elts)
            for index, element in enumerate(target.elts):
                self._bind(element, (_Part(value, index, size),))
            return
        self._bind(target, (value,))

    def _bind_element(self, target: ast.AST, iterable: ast.AST, local: bool = True) -> None:
        """A loop target, element-wise for `zip(a, b)` and `enumerate(a)` (whose index is static), as
        ast_flow._Flow.bind_element does."""
        parts = None
        if isinstance(iterable, Call) and isinstance(iterable.func, Name) and not iterable.keywords \
                and not any(isinstance(a, Starred) for a in iterable.args):
            name = iterable.func.id
            if name in ("zip", "safe_zip"):
                parts = [(a,) for a in iterable.args]
            elif name == "enumerate" and self.module.builtin("enumerate") and len(iterable.args) == 1:
                parts = [(), (iterable.args[0],)]
        if parts is not None and isinstance(target, (Tuple, List)) and len(target.elts) == len(parts) \
                and not any(isinstance(e, Starred) for e in target.elts):
            for element, values in zip(target.elts, parts):
                self._bind(element, values, local)
            return
        self._bind(target, (iterable,), local)

    def _call(self, node: Call) -> None:
        func = node.func
        if (func.attr if isinstance(func, Attribute) else func.id if isinstance(func, Name) else None) in _PRIMITIVES:
            self.bodies.extend(a for a in (*node.args, *(k.value for k in node.keywords)) if isinstance(a, (Name, Lambda)))
        self.calls.append(node)
        if isinstance(func, Name):
            self.name_calls.append(node)
        if isinstance(func, Attribute) and isinstance(func.value, Name):
            values = (*node.args, *(k.value for k in node.keywords))
            self.receivers.append((func.value.id, values))  # `xs.append(tracer)`: a local xs now holds a tracer
            if values and func.attr not in STORING:
                self._unkept.add(func.value.id)  # (ast_flow.py: no container after `xs.f(tracer)`)
            if func.attr in STORING:
                self.stores.append(func.value.id)
        elif isinstance(func, Attribute) and func.attr in STORING and type(root := _root(func.value)) is Name:
            self.stores.append(root.id)  # `self.history.append(v)`
        elif isinstance(func, Name) and func.id == "print":
            self.prints.append(node)

    # -- what ast_flow.py certainly calls a tracer (`must`) ------------------------------------
    def _must_record(self, name: str, how: tuple[str, tuple] | None, at: ast.AST) -> None:
        """`name` is bound at `at` (a node of the binding statement): where it starts orders it before
        or after a read outside loops (`must_at`)."""
        self.must_binds.setdefault(name, []).append((how, (at.lineno, at.col_offset)))

    def _must_unknown(self, target: ast.AST) -> None:
        for node in _walk_expression(target):
            if type(node) is Name:
                self._must_record(node.id, None, node)

    def _must_bind(self, target: ast.AST, value: ast.AST, unpack: bool = True) -> None:
        """ast_flow._Flow.bind: a name gets the value; an unpacked target element-wise from a literal of
        its length, else each element the whole value (but a flatten's tree definition is static)."""
        cls = type(target)
        if cls is Name:
            self._must_record(target.id, ("one", (value,)), target)
        elif cls is Starred:
            self._must_bind(target.value, value, unpack)
        elif cls in (Tuple, List):
            elements = value.elts if unpack and type(value) in (Tuple, List) and len(value.elts) == len(target.elts) else None
            flattened = type(value) is Call and dotted(value.func) is not None \
                and dotted(value.func).rsplit(".", 1)[-1] in ("tree_flatten", "flatten") and len(target.elts) == 2
            for i, element in enumerate(target.elts):
                if elements is not None and type(elements[i]) is Starred or flattened and i == 1:
                    self._must_unknown(element)
                else:
                    self._must_bind(element, elements[i] if elements is not None else value, unpack)
        # attribute and item targets only join into a container: never less traced

    def _must_element(self, target: ast.AST, iterable: ast.AST) -> None:
        """ast_flow._Flow.bind_element: element-wise for zip/enumerate (an index is static), else each
        target the iterated value."""
        if type(iterable) is Call and type(iterable.func) is Name and type(target) in (Tuple, List) \
                and not iterable.keywords and not any(type(a) is Starred for a in iterable.args) \
                and not any(type(e) is Starred for e in target.elts):
            name = iterable.func.id
            if name in ("zip", "safe_zip") or name == "enumerate" and len(iterable.args) == 1:
                # (whether ast_flow.py reads it element-wise depends on what the name resolves to: either way)
                self._must_unknown(target)
                return
        self._must_bind(target, iterable, unpack=False)

    @property
    def must_names(self) -> frozenset[str]:
        """The local names ast_flow.py certainly calls TRACED wherever they are read: every binding of
        them (the parameter's too) certainly is. The greatest fixpoint."""
        if self._must_memo is not None and self._must_memo[0] == self.must_params:
            return self._must_memo[1]
        names = {n for n, binds in self.must_binds.items() if all(how is not None for how, _ in binds)
                 and (n not in self.params or n in self.must_params)}
        names |= {n for n in self.must_params if all(how is not None for how, _ in self.must_binds.get(n, ()))}
        names -= self.declared
        changed = True
        while changed:
            changed = False
            for name in list(names):
                if not all(self._must_binding(how, names) for how, _ in self.must_binds.get(name, ())):
                    names.discard(name)
                    changed = True
        self._must_memo = (self.must_params, frozenset(names))
        return self._must_memo[1]

    def _must_binding(self, how: tuple[str, tuple] | None, names) -> bool:
        if how is None:
            return False
        mode, exprs = how
        return (any if mode == "any" else all)(self._must(e, names) for e in exprs)

    def must_at(self, point: tuple[int, int] | None) -> frozenset[str]:
        """`must_names` where a statement starting at `point` outside every loop reads them: only the
        bindings that start before it can reach it (all of them inside a loop: `point` None)."""
        names = self.must_names
        if point is None:
            return names
        out = set()
        for name in {*self.must_binds, *self.must_params} - self.declared:
            before = [how for how, at in self.must_binds.get(name, ()) if at < point]
            if name in self.params and name not in self.must_params or not before and name not in self.params:
                continue
            if all(self._must_binding(how, names) for how in before):
                out.add(name)
        return frozenset(out)

    def _must(self, node: ast.AST, names) -> bool:
        """Does ast_flow.py certainly call `node` TRACED (`names`: the local names it does)?"""
        cls = type(node)
        if cls is Name:
            if node.id in self.local:
                return node.id in names
            return self.outer is not None and node.id not in self.bound and node.id in self.outer.must_names
        if cls in (Tuple, List, Set, Subscript, BinOp, Starred):
            return any(self._must(child, names) for child in branches(node))
        if cls is Attribute:
            return node.attr in TENSOR_ATTRIBUTES and node.attr not in STATIC_ATTRIBUTES and self._must(node.value, names)
        if cls is Call:
            args = [*node.args, *(k.value for k in node.keywords)]
            return self._joining_call(node) and any(self._must(a, names) for a in args) or \
                type(node.func) is Attribute and self._joining_method(node.func) and self._must(node.func.value, names)
        return False

    @cached_property
    def evaluated_calls(self) -> list[tuple[Call, frozenset[str], tuple[int, int] | None]]:
        """The calls ast_flow._Flow certainly evaluates (and so records for the helpers it analyses), each
        with the names an enclosing `isinstance` test proves static there: those in the statements it
        walks, outside lambdas, comprehensions, identity and string comparisons, the right side of
        `and`/`or` and the narrowed branch of a conditional expression; and where the statement each is
        in starts (None inside a loop: `must_at`)."""
        out: list[tuple[Call, frozenset[str], tuple[int, int] | None]] = []
        # (node, narrowed names, where the statement it is in starts: None inside a loop)
        stack: list = [(stmt, _NONE, ()) for stmt in (self.node.body if not isinstance(self.node, Lambda) else [])]
        while stack:
            node, narrowed, point = stack.pop()
            cls = type(node)
            if isinstance(node, ast.stmt) and point is not None:
                point = (node.lineno, node.col_offset)
            if cls is If:
                proven = frozenset(narrowed_by(node.test)) - _stored_in(node.body)
                stack += [(node.test, narrowed, point), *((n, narrowed | proven, point) for n in node.body),
                          *((n, narrowed, point) for n in node.orelse)]
            elif cls in (For, AsyncFor):
                stack += [(node.iter, narrowed, point), *((n, narrowed, None) for n in node.body), *((n, narrowed, point) for n in node.orelse)]
            elif cls is While:
                stack += [(node.test, narrowed, None), *((n, narrowed, None) for n in node.body), *((n, narrowed, point) for n in node.orelse)]
            elif cls in (With, AsyncWith):
                stack += [*((i.context_expr, narrowed, point) for i in node.items), *((n, narrowed, point) for n in node.body)]
            elif cls is Try:
                stack += [(n, narrowed, point) for n in (*node.body, *(s for h in node.handlers for s in h.body), *node.orelse, *node.finalbody)]
            elif cls in (Assign, AnnAssign, Expr, Return):
                if node.value is not None:
                    stack.append((node.value, narrowed, point))
            elif cls is AugAssign:
                stack += [(node.target, narrowed, point), (node.value, narrowed, point)]
            elif cls is Compare:
                if not (all(type(op) in (Is, IsNot) for op in node.ops) or any(
                        type(x) is JoinedStr or type(x) is Constant and isinstance(x.value, (str, bytes))
                        for x in (node.left, *node.comparators))):
                    stack += [(x, narrowed, point) for x in (node.left, *node.comparators)]
            elif cls is BoolOp:
                stack.append((node.values[0], narrowed, point))
            elif cls is IfExp:
                stack += [(node.test, narrowed, point), (node.orelse, narrowed, point)]
            elif isinstance(node, ast.expr) and cls not in _COMPREHENSIONS and cls is not Lambda:
                if cls is Call:
                    out.append((node, narrowed, point))
                stack.extend((child, narrowed, point) for child in branches(node) if isinstance(child, ast.expr))
            # other statements (raise, assert, del, match, nested defs and classes): not evaluated
        return out

    def _joining_call(self, node: Call) -> bool:
        """ast_flow._Flow._call joins the arguments' values into the result (no static function, no
        module helper whose result it reads, no predicate of unknown answer)."""
        func = node.func
        text = dotted(func)
        if text is None or self.module.stars:
            return False
        head = text.split(".", 1)[0]
        last = text.rsplit(".", 1)[-1]
        if last in STATIC_FUNCTION_NAMES or last in STATIC_METHODS or last.startswith(("is_", "has_")):
            return False
        if head in self.visible:
            return type(func) is Name and head in self.env  # a local def: join(its value, arguments)
        if type(func) is Name:
            if head in self.module.defs or head in STATIC_BUILTINS:
                return False
            if head not in self.module.imported:
                return True  # a builtin or a module-level name bound by an assignment: no qualified API
        if head in self.module.imported and head not in self.module.module_imports or head in self.module.defs:
            return False  # imported in some function (not read here), or a module function
        qualified = self.module.qualified(func)
        return not self.module.static_callee(func) and not any(q in STRUCTURE_KEEPING for q in qualified)

    def _joining_method(self, func: Attribute) -> bool:
        """`x.f(...)` of a traced `x` joins `x` into the result (ast_flow._Flow._call, receiver not static)."""
        return func.attr not in STATIC_METHODS and func.attr not in STATIC_FUNCTION_NAMES and not func.attr.startswith(("is_", "has_"))

    def _bind(self, target: ast.AST, values: tuple, local: bool = True) -> None:
        if isinstance(target, Name):
            self._bind_name(target.id, values, local)
        elif isinstance(target, (Tuple, List)):
            for element in target.elts:
                self._bind(element, values, local)
        elif isinstance(target, Starred):
            self._bind(target.value, values, local)
        elif isinstance(target, (Attribute, Subscript)):
            base = target.value
            if isinstance(base, Name):
                self.stores.append(base.id)
                self.bindings.append(((base.id,), values))  # `arr[i] = tracer`
            elif type(root := _root(base)) is Name:
                self.stores.append(root.id)  # `self.info["k"] = v`, `state.fields[i] = v`

    def _note_container(self, target: ast.AST, value: ast.AST) -> None:
        if type(target) is Name and type(value) in _CONTAINERS:
            self._container_binds[target.id] = self._container_binds.get(target.id, 0) + 1

    @cached_property
    def containers(self) -> frozenset[str]:
        """The local names ast_flow.py certainly holds a container in (trace_values.Value.container: a list,
        tuple, set or dict whose length and truth are static): every binding of them here builds one
        (a display or a comprehension, also by `+=`), none is a parameter, a declared name or another
        kind of binding, and no method but the `append`-like ones is called on them with arguments."""
        return frozenset(name for name, count in self._container_binds.items()
                         if self._binds.get(name) == count and name not in self.params and name not in self.declared
                         and name not in self._unkept)

    def _container(self, node: ast.AST) -> bool:
        """`node` is a container where ast_flow.py reads it (see `containers`)."""
        cls = type(node)
        return cls in _CONTAINERS or cls is Name and node.id in self.containers

    def _bind_name(self, name: str, values: tuple, local: bool = True) -> None:
        self._binds[name] = self._binds.get(name, 0) + 1
        self.bound.add(name)
        self.env.add(name)
        if local:
            self.local.add(name)
        if values:
            self.bindings.append(((name,), values))

    def inside(self, nodes: dict) -> bool:
        """This function is one of `nodes` (by id) or nested in one."""
        return id(self.node) in nodes or self.outer is not None and self.outer.inside(nodes)

    # -- which names may hold a tracer -------------------------------------------------------
    @cached_property
    def visible(self) -> frozenset[str]:
        """Every name this function binds or can read from the functions around it."""
        return frozenset(self.bound | (self.outer.visible if self.outer is not None else frozenset()))

    @cached_property
    def call_ids(self) -> frozenset[int]:
        return frozenset(map(id, self.calls))

    @cached_property
    def in_env(self) -> frozenset[str]:
        """The names ast_flow.py keeps a value for here: parameters and local bindings other than
        imports, here and in the functions around it."""
        return frozenset(self.env | (self.outer.in_env if self.outer is not None else frozenset()))

    @cached_property
    def _all_bindings(self) -> list[tuple[tuple[str, ...], tuple]]:
        """`bindings`, and the method calls that may put a tracer into a local (`xs.append(x)`)."""
        return self.bindings + [((name,), values) for name, values in self.receivers if name in self.in_env]

    @property
    def tainted(self) -> frozenset[str]:
        """Names that may hold a tracer: the parameters that may be traced (`maybe_params`: all of them
        unless `Flows` knows better), names declared global/nonlocal (unknown to ast_flow.py), what the
        enclosing functions taint, and every name bound to a value that may be a tracer, iterated to a
        fixpoint. Recomputed only when the parameters or the enclosing function's names change."""
        outer = self.outer.tainted if self.outer is not None and self.closure else frozenset()
        key = (self.maybe_params, outer, self.module.parameters_only)
        if self._memo is not None and self._memo[0] == key:
            self._taint = self._memo[1]
            return self._taint
        self._taint = self._taint_from(set(self.maybe_params) | outer)
        self._memo = (key, self._taint)
        return self._taint

    def _taint_from(self, names: set[str]) -> frozenset[str]:
        """The names that may hold a tracer when `names` may (and the declared ones, unless only
        parameters are sources): every binding to what may be one, to a fixpoint."""
        if not self.module.parameters_only:
            names |= self.declared
        self._taint = names
        changed = True
        while changed:
            changed = False
            for targets, values in self._all_bindings:
                if not names.issuperset(targets) and any(self.maybe(v) for v in values):
                    names.update(targets)
                    changed = True
        return frozenset(names)

    def returns_maybe(self, params: frozenset[str], index: int | None = None) -> bool:
        """ast_flow.TracedAnalysis.returns_of: may this module-level def return a tracer when the parameters `params`
        may be one? `index`: only element `index` of the tuples its returns give (`returned_size`).
        Undecided (a generator, recursion, helpers nested 3 deep): yes."""
        key = (params, index, self.module.parameters_only)
        if key in self._returns_memo:
            return self._returns_memo[key]
        module = self.module
        if self.yields or id(self.node) in module.returning or len(module.returning) >= 3:
            return True
        module.returning.append(id(self.node))
        saved = self._taint
        try:
            self._taint_from(set(params))
            values = self.returns if index is None else [value.elts[index] for value in self.returns]
            found = any(self.maybe(value) for value in values)
        finally:
            self._taint = saved
            module.returning.pop()
        self._returns_memo[key] = found
        return found

    @cached_property
    def returned_size(self) -> int | None:
        """The length of the tuple literal every `return` gives, none starred (ast_flow.TracedAnalysis.returns_of reads
        its elements one by one then); None otherwise."""
        sizes = {len(v.elts) if type(v) is Tuple and v.elts and not any(type(e) is Starred for e in v.elts)
                 else None for v in self.returns}
        return sizes.pop() if len(sizes) == 1 else None

    # -- the evaluator --------------------------------------------------------------------
    def maybe(self, node: ast.AST) -> bool:
        """May `node` be a tracer (or a value ast_flow.py cannot decide)?"""
        cls = type(node)
        if cls is Name:
            return node.id in self._taint
        if cls is Constant or cls is Lambda:
            return False
        if cls is Attribute:
            if node.attr in STATIC_ATTRIBUTES:
                return False
            if self.fields and type(node.value) is Name and node.attr in self._kept_fields(node.value.id):
                return False  # `saveat.dense`: a Python-valued field of the declared class
            return self.maybe(node.value)
        if cls is Call:
            return self._maybe_call(node)
        if cls in _COMPREHENSIONS:  # its loops only bind names (ast_flow._Flow._comprehension): the value is its element's
            return self.maybe(node.key) or self.maybe(node.value) if cls is DictComp else self.maybe(node.elt)
        if cls is BoolOp and type(node.op) is And:  # `isinstance(i, int) and i < 0`: the right side sees a Python i
            saved = self._taint
            try:
                for value in node.values:
                    if self.maybe(value):
                        return True
                    self._taint = self._taint - frozenset(narrowed_by(value))
                return False
            finally:
                self._taint = saved
        if cls is _Part:
            return self._maybe_part(node)
        if cls is Compare:
            if all(type(op) in (Is, IsNot) for op in node.ops):
                return False  # identity is decided at trace time
            if any(type(x) is JoinedStr or type(x) is Constant and isinstance(x.value, (str, bytes))
                   for x in (node.left, *node.comparators)):
                return False  # compared with a string: a Python value
        return any(self.maybe(child) for child in branches(node))

    def _maybe_call(self, node: Call) -> bool:
        func = node.func
        args = [*node.args, *(k.value for k in node.keywords)]
        if isinstance(func, Attribute):
            if func.attr in STATIC_METHODS or func.attr in STATIC_FUNCTION_NAMES:
                return False
            receiver = self.maybe(func.value)
            if not receiver and self._module_callee(func) and self.module.static_callee(func):
                return False
            return receiver or any(map(self.maybe, args)) or not self.module.parameters_only and self.module.staged(func)
        if isinstance(func, Name):
            name = func.id
            if name in self.visible and name not in self.module.imported:  # a local: its value joined with the arguments
                return name in self._taint or any(map(self.maybe, args)) or self._nested_returns_maybe(name, node)
            if name in STATIC_FUNCTION_NAMES or name in STATIC_BUILTINS and self.module.builtin(name):
                return False
            if self._module_callee(func) and self.module.static_callee(func):
                return False
            if self.module.parameters_only:
                return name in self._taint or any(map(self.maybe, args))
            helper = self.module.helper(name) if name in self.module.defs else None
            if helper is not None:  # what it returns for what this call may pass (ast_flow.TracedAnalysis.returns_of)
                return name in self._taint or helper.returns_maybe(frozenset(self.bound_at(node, helper)))
            return name in self._taint or any(map(self.maybe, args)) or name in self.module.defs or self.module.staged(func)
        return self.maybe(func) or any(map(self.maybe, args))

    def _maybe_part(self, part: "_Part") -> bool:
        """ast_flow._Flow.bind's value for one element of a tuple target: the element of a tuple literal
        of the same length, static for a tree definition (`leaves, treedef = tree_flatten(x)`), the
        element of the tuples every `return` of a module helper gives when they have the target's
        length (ast_flow.TracedAnalysis.returns_of's elements); otherwise the value of the whole."""
        whole = part.whole
        cls = type(whole)
        if cls is Tuple or cls is List:
            if len(whole.elts) == part.size and type(whole.elts[part.index]) is not Starred:
                return self.maybe(whole.elts[part.index])
            return self.maybe(whole)
        if cls is not Call:
            return self.maybe(whole)
        func = whole.func
        last = func.attr if type(func) is Attribute else func.id if type(func) is Name else None
        if last in ("tree_flatten", "flatten") and part.size == 2 and part.index == 1:
            return False
        found = self._maybe_call(whole)
        if not found or type(func) is not Name or self.module.parameters_only or last in self._taint \
                or last in self.visible and last not in self.module.imported or last not in self.module.defs:
            return found
        helper = self.module.helper(last)  # (as `_maybe_call` reads a helper's result)
        if helper is None or helper.returned_size != part.size:
            return found
        return helper.returns_maybe(frozenset(self.bound_at(whole, helper)), part.index)

    def _nested_returns_maybe(self, name: str, call: Call) -> bool:
        """May a def nested here, called here as `name`, return a tracer? ast_flow.TracedAnalysis.returns_of reads it with
        this function's locals at the call: its parameters this call may pass a tracer and every name
        that may hold one here are its sources."""
        nodes = self.nested_defs.get(name, ())
        if nodes and self.module.function_of is None:
            return True
        for node in nodes:
            inner = self.module.function_of(node)
            if inner.returns_maybe(frozenset(self.bound_at(call, inner)) | self._taint):
                return True
        return False

    def _kept_fields(self, name: str) -> frozenset[str]:
        """The fields `name` keeps all through the function: those of its parameter's class, when every
        other binding of it hands it through a call that keeps a pytree's class (`eqx.tree_at(where, name, ...)`)."""
        fields = self.fields.get(name)
        if not fields:
            return frozenset()
        for targets, values in self._all_bindings:
            if name in targets and not (len(values) == 1 and self._keeps(values[0], name)):
                return frozenset()
        return fields

    def _keeps(self, value: ast.AST, name: str) -> bool:
        if not (isinstance(value, Call) and self._module_callee(value.func)):
            return False
        positions = {STRUCTURE_KEEPING[q] for q in self.module.qualified(value.func) if q in STRUCTURE_KEEPING}
        if len(positions) != 1:
            return False
        position = positions.pop()
        return len(value.args) > position and not any(isinstance(a, Starred) for a in value.args[:position + 1]) \
            and type(value.args[position]) is Name and value.args[position].id == name

    def _module_callee(self, func: ast.AST) -> bool:
        """The spelling's first name is not bound here or around: it is the module's."""
        text = dotted(func)
        return text is not None and text.split(".", 1)[0] not in self.visible

    def bound_at(self, call: Call, callee: "Function") -> set[str]:
        """The parameters of `callee` that this call may pass a tracer (ast_flow._bind_call; an
        unpacked argument reaches every parameter, extra arguments reach `*args`/`**kwargs`)."""
        args = callee.node.args
        positional = [a.arg for a in (*args.posonlyargs, *args.args)]
        out: set[str] = set()
        i = 0
        for arg in call.args:
            if isinstance(arg, Starred):
                if self.maybe(arg.value):
                    out |= callee.params
                continue
            if self.maybe(arg):
                out.add(positional[i] if i < len(positional) else args.vararg.arg if args.vararg else "")
            i += 1
        for keyword in call.keywords:
            if self.maybe(keyword.value):
                if keyword.arg is None:
                    out |= callee.params
                else:
                    out.add(keyword.arg if keyword.arg in callee.params else args.kwarg.arg if args.kwarg else "")
        return out & callee.params

    # -- what the gates ask ---------------------------------------------------------------
    def traced_test(self) -> bool:
        """A condition or trip count here may be a tracer (PML201-PML204). Not iterating a container,
        nor its truth (`if xs:`, `not xs`): trace_values.truth and ast_flow._Flow.trip_count call them static."""
        return any(self.maybe_at(test, narrowed) for test, narrowed in self.tests
                   if not (id(test) in self.iterables and (self._leaves(test) or self._must_iterate(test, narrowed)))
                   and not self._container(test.operand if type(test) is UnaryOp and type(test.op) is Not
                                           and id(test) not in self.iterables else test))

    def _must_iterate(self, iterable: ast.AST, narrowed: frozenset[str]) -> bool:
        """Iterating what ast_flow.py certainly calls a tracer: its length is part of its shape, a static
        trip count (ast_flow._Flow.trip_count). Not `range(...)`, whose arguments are the count."""
        if not self.must_params or _range_args(iterable) is not None:
            return False
        return self._must(iterable, self.must_names - narrowed)

    def _leaves(self, iterable: ast.AST) -> bool:
        """A pytree's leaves (`jtu.tree_leaves(x)`): as many as its structure has, static under any jit."""
        return isinstance(iterable, Call) and self._module_callee(iterable.func) \
            and not self.module.qualified(iterable.func).isdisjoint(PYTREE_LISTS)

    def maybe_at(self, node: ast.AST, narrowed: frozenset[str]) -> bool:
        """`maybe(node)` where the names `narrowed` are proven Python values."""
        taint = self.tainted
        self._taint = taint - narrowed
        try:
            return self.maybe(node)
        finally:
            self._taint = taint

    def traced_shape_argument(self) -> bool:
        """A size argument of a jax shape call here (`jnp.zeros(n)`, by last name; static_names.size_arguments)
        is passed something that may be traced."""
        for call in self.calls:
            func = call.func
            function = func.attr if isinstance(func, Attribute) else func.id if isinstance(func, Name) else None
            if function not in JAX_SHAPE_NAMES:
                continue
            values = [a.value if isinstance(a, Starred) else a for a in call.args] + [k.value for k in call.keywords]
            sizes = size_arguments(function, [(isinstance(a, Starred), None) for a in call.args]
                                   + [(k.arg is None, k.arg) for k in call.keywords])
            if any(size and self.maybe_at(value, _NONE) for value, size in zip(values, sizes)):
                return True
        return False

    def long_loop(self) -> bool:
        """A `for` loop here may run a long literal count or a count read from a traced length (PML206)."""
        self.tainted  # noqa: B018
        return any(self._long(loop.iter) for loop in self.loops)

    def _long(self, iterable: ast.AST) -> bool:
        args = _range_args(iterable)
        if args is None:  # unrolled_loop._count: rows of (a slice of) a named parameter, all of them maybe
            sources = _zip_parts(iterable) or _enumerated(iterable) or [iterable]  # traced (`*args` is a tuple)
            return all(self.maybe(s) for s in sources) and any(
                isinstance(b := _base(s), Name) and b.id in self.params and b.id not in self.packed for s in sources)
        values = [_int(a) for a in args]
        if all(v is not None for v in values):
            try:
                return len(range(*values)) >= MIN_ITERATIONS
            except ValueError:  # a zero step: whatever the rule makes of it
                return True
        if len(args) == 1 and isinstance(args[0], Name) and self._long_default(args[0].id):
            return True
        if len(args) == 1 and _configured(args[0], self):  # unrolled_loop._configured_count decides
            return True
        return any(self._length_read(a) for a in args)

    def _long_default(self, name: str) -> bool:
        function = self
        while function is not None:
            if function.defaults.get(name, 0) >= MIN_ITERATIONS:
                return True
            function = function.outer
        return False

    def _length_read(self, expr: ast.AST, depth: int = 0) -> bool:
        """`len(x)`, `x.shape[0]` with `x` maybe traced, also through a local bound to one."""
        for node in _walk_expression(expr):
            if isinstance(node, Call) and isinstance(node.func, Name) and node.func.id == "len" \
                    and node.args and self.maybe(node.args[0]):
                return True
            if isinstance(node, Subscript) and isinstance(node.value, Attribute) and node.value.attr == "shape" \
                    and self.maybe(node.value.value):
                return True
            if isinstance(node, Name) and depth < 4 and node.id in self.bound and node.id not in self.params:
                for targets, values in self.bindings:
                    if node.id in targets and any(self._length_read(v, depth + 1) for v in values):
                        return True
        return False

    def side_effect(self) -> bool:
        """A write into a container that outlives the call or into a parameter's, a `global`/`nonlocal`,
        or a `print` of a value that may be traced (PML501)."""
        if self.declared or self.outside_stores:
            return True
        if any(name == "self" or name in self.params or name not in self.local and self._may_be_container(name)
               for name in self.stores):
            return True
        self.tainted  # noqa: B018
        return any(self.maybe(a) for call in self.prints for a in (*call.args, *(k.value for k in call.keywords)))


    def _may_be_container(self, name: str) -> bool:
        """A name read from outside may be bound to a container (side_effect_in_jit._outside): bound
        somewhere around, or at module level other than by an import, a def or a `*` import."""
        return name in self.bound or self.outer is not None and name in self.outer.visible or name in self.module.bound


def may_be_python(expr: ast.AST, caller: "Function | None", depth: int = 0) -> bool:
    """May callsites.ArgumentKinds call the argument `expr` a Python value (the evidence that makes a
    jitted function's parameter configuration)? Literals, `int()`-like calls, arithmetic of those,
    `x.shape[i]`, and names with a binding in `caller` (the function the call is in) to such a value,
    or bound outside it, may be; parameters, attributes, other calls and subscripts are not."""
    cls = type(expr)
    if cls is Constant:
        return True
    if cls is Name:
        if caller is None or expr.id not in caller.local or expr.id in caller.declared or depth > 4:
            return True  # read from around the function (or too far to follow): whatever it is
        return any(_binds_python(v, caller, depth + 1) for targets, values in caller.bindings if expr.id in targets for v in values)
    if cls is Call:
        return type(expr.func) is Name and expr.func.id in PYTHON_CALLS
    if cls is BinOp:
        return may_be_python(expr.left, caller, depth) and may_be_python(expr.right, caller, depth)
    if cls is UnaryOp:
        return may_be_python(expr.operand, caller, depth)
    if cls is Subscript:
        return type(expr.value) is Attribute and expr.value.attr == "shape"
    if cls in (Tuple, List):
        return all(_literal(e) for e in expr.elts)
    return False


def _binds_python(value: ast.AST, caller: "Function", depth: int) -> bool:
    """A binding to `value` may give its name a Python value (callsites.ArgumentKinds._binding): the
    value may be one, one of its elements may be (`a, n = x, 3`: any element, for either name), or it
    is a loop over `range`."""
    if type(value) is _Part:
        value = value.whole
    if may_be_python(value, caller, depth):
        return True
    if type(value) in (Tuple, List):
        return any(_binds_python(e, caller, depth) for e in value.elts)
    return type(value) is Call and type(value.func) is Name and value.func.id == "range"


def _literal(expr: ast.AST) -> bool:
    """callsites._literal_value succeeds: numbers, strings, bool, None, signed numbers, tuples of them."""
    if type(expr) is Constant:
        return True
    if type(expr) is UnaryOp and type(expr.op) in (USub, UAdd):
        return type(expr.operand) is Constant and type(expr.operand.value) in (int, float)
    return type(expr) in (Tuple, List) and all(_literal(e) for e in expr.elts)


def direct_maybe(fn: ast.AST, api, keywords: dict[str, ast.expr]) -> frozenset[str]:
    """The parameters of `fn` that `api` (a jit transform, apis.Api) applied with `keywords` may trace:
    ast_flow.TracedAnalysis._direct_params, keeping only the rules that need no other evidence (the
    static arguments as written, `jit_compile_linear`'s auxiliaries, dtypes, annotations). Every
    parameter when the static arguments cannot be read."""
    args = fn.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs, *([args.vararg] if args.vararg else []),
              *([args.kwarg] if args.kwarg else [])]
    names = {p.arg for p in params}
    static = _static_arguments(fn, api, keywords)
    if static is None:
        return frozenset(names)
    positional = [*args.posonlyargs, *args.args]
    is_method = not isinstance(fn, Lambda) and bool(positional) and positional[0].arg in ("self", "cls")
    maybe = set()
    for i, param in enumerate(params):
        name, ann = param.arg, _annotation(param.annotation)
        if name in static:
            continue
        if param is args.kwarg and static - names:
            maybe.add(name)  # may carry static arguments: unknown to ast_flow.py
        elif i == 0 and is_method and api.framework != "jax" \
                or api.name == "phiml.math.jit_compile_linear" and i > 0 and "auxiliary_args" not in keywords \
                or is_dtype_parameter(name, ann) \
                or api.framework == "phiml" and ann in PHIML_STATIC_ANNOTATIONS \
                or (api.framework == "tensorflow" or api.name == "equinox.filter_jit") \
                and (ann in PYTHON_SCALAR_ANNOTATIONS or is_python_value(param.annotation)):
            continue
        else:
            maybe.add(name)
    return frozenset(maybe)


def direct_traced(fn: ast.AST, transforms: list) -> frozenset[str]:
    """The parameters of a jit-decorated def that ast_flow.py certainly calls TRACED: those every
    decorator traces under jax's own jit (`direct_maybe`), but a method's `self`/`cls` and `**kwargs`
    (UNKNOWN there). None where a decorator is not read for sure (several APIs, unreadable arguments)."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    out = None
    for apis, keywords in transforms:
        if keywords is None or len(apis) != 1 or apis[0].framework != "jax" or apis[0].name == "equinox.filter_jit" \
                or _static_arguments(fn, apis[0], keywords) is None:
            return frozenset()
        traced = set(direct_maybe(fn, apis[0], keywords))
        if positional and positional[0].arg in ("self", "cls"):
            traced.discard(positional[0].arg)
        if args.kwarg is not None:
            traced.discard(args.kwarg.arg)
        out = traced if out is None else out & traced
    return frozenset(out or ())


def direct_fields(fn: ast.AST, api, keywords: dict[str, ast.expr], module: Module) -> dict[str, frozenset[str]]:
    """Under `equinox.filter_jit`, the Python-valued fields each parameter's declared class has
    (`_direct_params` gives them to every parameter it does not call static or unknown outright)."""
    if isinstance(fn, Lambda) or _static_arguments(fn, api, keywords) is None:
        return {}
    positional = [*fn.args.posonlyargs, *fn.args.args]
    method = bool(positional) and positional[0].arg in ("self", "cls")
    params = [a for a in (*positional, *fn.args.kwonlyargs) if not (method and a is positional[0])]
    return {a.arg: found for a in params if (found := module.static_fields(a.annotation))}


def _static_arguments(fn: ast.AST, api, keywords: dict[str, ast.expr]) -> frozenset[str] | None:
    """transforms.static_params on ast; a misspelt `auxiliary_args` entry counts for nothing here."""
    positional = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    static: set[str] = set()
    for keyword in api.static_keywords:
        value = keywords.get(keyword)
        if value is None:
            continue
        try:
            parsed = literal_value(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        items = tuple(parsed) if isinstance(parsed, (tuple, list)) else (parsed,)
        if keyword == "auxiliary_args":
            if not isinstance(parsed, str):
                return None
            static |= {s.strip() for s in parsed.split(",") if s.strip()}
        elif keyword == "static_argnums":
            if not all(type(i) is int and -len(positional) <= i < len(positional) for i in items):
                return None
            static |= {positional[i] for i in items}
        elif keyword == "static_argnames":
            if not all(isinstance(n, str) for n in items):
                return None
            static |= set(items)
    return frozenset(static)


def annotation_name(node: ast.expr | None) -> str | None:
    """callsites.annotation_name: `_annotation` of a subscripted annotation's base (`Literal` for
    `Literal['a']`)."""
    return _annotation(node.value if isinstance(node, Subscript) else node)


def _annotation(node: ast.expr | None) -> str | None:
    """ast_flow._annotation: the annotation's last name, a string annotation's text, `?` otherwise."""
    if node is None:
        return None
    if isinstance(node, Name):
        return node.id
    if isinstance(node, Attribute):
        return node.attr
    if isinstance(node, Constant) and isinstance(node.value, str):
        return node.value
    return "?"


class _Part:
    """Element `index` of `whole` bound to a tuple target of `size` elements (`a, b = helper(x)`):
    `Function.maybe` reads it as ast_flow._Flow.bind does. Its one branch is the whole value, so walks
    that read a binding's syntax (`_length_read`) see what they saw before."""

    __slots__ = ("whole", "index", "size")
    _fields = ("whole",)

    def __init__(self, whole: ast.AST, index: int, size: int) -> None:
        self.whole, self.index, self.size = whole, index, size


class Flows:
    """The functions ast_flow.py analyses, with the parameters each may receive a tracer in: the jit
    roots (`roots`: function -> the parameters its transforms may trace), the helpers they call by
    name (what their call sites may pass, to a fixpoint; `seeds`: what calls in other modules pass
    some of them) and the functions they hand to jax's loop and branch primitives (every parameter). `function_of(node)`: the `Function` of a def or lambda;
    `defs(name)`: the defs of the file with that name."""

    def __init__(self, roots: dict[int, tuple[ast.AST, frozenset[str]]], function_of, defs,
                 fields: dict[int, dict[str, frozenset[str]]] | None = None,
                 seeds: dict[int, tuple[ast.AST, frozenset[str]]] | None = None,
                 must: dict[int, frozenset[str]] | None = None) -> None:
        self.params: dict[int, frozenset[str]] = {}
        self.functions: dict[int, Function] = {}
        queue: list[Function] = []
        for key, (node, maybe) in (*roots.items(), *(seeds or {}).items()):  # seeds: helpers traced from elsewhere
            function = function_of(node)
            self.functions[key], self.params[key] = function, maybe
            function.fields = (fields or {}).get(key, {})
            function.must_params = (must or {}).get(key, frozenset())
            queue.append(function)
        rounds = 0
        while queue:
            rounds += 1
            if rounds > 20 * (len(self.functions) + 10):  # no fixpoint in sight: every parameter may be traced
                for function in self.functions.values():
                    self.params[id(function.node)] = frozenset(function.params)
                break
            function = queue.pop()
            function.maybe_params = self.params[id(function.node)]
            function.tainted  # noqa: B018 (what the call sites below read)
            reached: list[tuple[Function, frozenset[str]]] = []
            for call in function.name_calls:
                for callee in defs(call.func.id):
                    if id(callee) not in roots:
                        helper = function_of(callee)
                        reached.append((helper, frozenset(function.bound_at(call, helper))))
            for body in function.bodies:
                for target in ([body] if isinstance(body, Lambda) else defs(body.id)):
                    if id(target) not in roots:
                        helper = function_of(target)
                        reached.append((helper, frozenset(helper.params)))
            for helper, maybe in reached:
                key = id(helper.node)
                old = self.params.get(key)
                if old is None or not old.issuperset(maybe):
                    self.params[key] = maybe if old is None else old | maybe
                    self.functions[key] = helper
                    queue.append(helper)
            # helpers nested in it read its names: look at them again with what it taints now
            queue.extend(f for f in self.functions.values() if f is not function and f.inside({id(function.node): None})
                         and f not in queue)
        for key, function in self.functions.items():
            function.maybe_params = self.params[key]
            # ast_flow.TracedAnalysis._closure: a function no flow reaches is never analysed; what is nested in it reads
            # none of its names (a closure over Python values, or over arrays captured as constants)
            function.closure = function.outer is None or id(function.outer.node) in self.functions
        self._must_helpers(roots)

    def _must_helpers(self, roots: dict) -> None:
        """ast_flow.py joins what every analysed call passes a helper: a parameter some certainly
        evaluated call certainly passes a tracer is TRACED. From the roots' certain parameters, to a
        fixpoint (only helpers a name of the module denotes, by one def of its body). Not in a file with
        many traced functions: ast_flow.TracedAnalysis._run analyses at most 50 contexts, and a join it
        leaves unfinished there may keep a parameter unknown that some call passes a tracer."""
        if len(self.functions) > HELPER_EVIDENCE_LIMIT or any(f.module.parameters_only for f in self.functions.values()):
            return  # (read from configuration alone, the flows are fewer: their count says nothing of ast_flow.py's)
        changed = True
        while changed:
            changed = False
            for function in list(self.functions.values()):
                if not function.must_params:
                    continue
                module = function.module
                for call, narrowed, point in function.evaluated_calls:
                    func = call.func
                    if type(func) is not Name or func.id in function.visible or func.id.startswith(("is_", "has_")) \
                            or func.id in STATIC_FUNCTION_NAMES or any(type(a) is Starred for a in call.args) \
                            or any(k.arg is None for k in call.keywords):
                        continue
                    helper = module.helper(func.id)
                    if helper is None or id(helper.node) in roots or id(helper.node) not in self.functions:
                        continue
                    args = helper.node.args
                    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
                    certain = function.must_at(point) - narrowed
                    found = {positional[i] for i, a in enumerate(call.args) if i < len(positional) and function._must(a, certain)}
                    found |= {k.arg for k in call.keywords if k.arg in helper.params and function._must(k.value, certain)}
                    if not found <= helper.must_params:
                        helper.must_params = helper.must_params | found
                        changed = True

    def analysed(self) -> list[Function]:
        return list(self.functions.values())


def functions_in(node: ast.AST, outer: Function | None, module: Module):
    """`Function`s of `node` (a def or lambda) and of every function nested in it, outermost first."""
    first = Function(node, outer, module)
    out = [first]
    stack = [(child, first) for child in _own_branches(node)]
    while stack:
        current, owner = stack.pop()
        if type(current) in _FUNCTION_KINDS:
            function = Function(current, owner, module)
            out.append(function)
            stack.extend([(child, function) for child in _own_branches(current)])
        else:
            stack.extend([(child, owner) for child in branches(current)])
    return out


def _own_branches(fn: ast.AST) -> list:
    return [fn.body] if isinstance(fn, Lambda) else list(fn.body)


def _module_statements(tree: ast.Module):
    """Statements of the module outside functions and classes (`if`, `try` and `with` blocks included)."""
    stack = list(tree.body)
    while stack:
        stmt = stack.pop()
        yield stmt
        if not isinstance(stmt, (FunctionDef, AsyncFunctionDef, ClassDef)):
            for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                stack.extend(getattr(stmt, name, ()))


def narrowed_by(test: ast.AST) -> list[str]:
    """ast_flow._narrowed: the names `test` proves Python values when true, `isinstance(i, (int, np.integer))`
    (also inside `and`); a check against an array, tensor or tracer type proves nothing."""
    if isinstance(test, BoolOp) and isinstance(test.op, And):
        return [name for value in test.values for name in narrowed_by(value)]
    if isinstance(test, Call) and isinstance(test.func, Name) and test.func.id == "isinstance" \
            and len(test.args) == 2 and not test.keywords and isinstance(test.args[0], Name):
        types = test.args[1]
        for element in types.elts if isinstance(types, (Tuple, List)) else [types]:
            text = element.attr if isinstance(element, Attribute) else element.id if isinstance(element, Name) else "?"
            if text == "?" or any(word in text.lower() for word in ("array", "tensor", "tracer", "jax")):
                return []
        return [test.args[0].id]
    return []


def _stored_in(body: list) -> frozenset[str]:
    """Names a block binds (rebinding a narrowed name ends what the test proved)."""
    return frozenset(n.id for stmt in body for n in _walk_expression(stmt) if isinstance(n, Name)
                     and not isinstance(n.ctx, Load))


_NONE: frozenset[str] = frozenset()


def _walk_expression(expr: ast.AST):
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _FUNCTIONS):
            stack.extend(branches(node))


def _zip_parts(iterable: ast.AST) -> list | None:
    if isinstance(iterable, Call) and isinstance(iterable.func, Name) and iterable.func.id == "zip" \
            and iterable.args and not iterable.keywords and not any(isinstance(a, Starred) for a in iterable.args):
        return list(iterable.args)
    return None


def _enumerated(iterable: ast.AST) -> list | None:
    if isinstance(iterable, Call) and isinstance(iterable.func, Name) and iterable.func.id == "enumerate" \
            and len(iterable.args) == 1 and not iterable.keywords and not isinstance(iterable.args[0], Starred):
        return [iterable.args[0]]
    return None


def _root(expr: ast.AST) -> ast.AST:
    """The object at the start of a chain of attributes and subscripts (`self` of `self.a["k"].b`)."""
    while isinstance(expr, (Attribute, Subscript)):
        expr = expr.value
    return expr


def _base(sequence: ast.AST) -> ast.AST:
    while isinstance(sequence, Subscript):
        sequence = sequence.value
    return sequence


def _configured(count: ast.AST, function: "Function") -> bool:
    """A count that may be set where the object or the module is configured: `self.n`, or a name the
    module binds (`N_STEPS`); unrolled_loop reads its values off the constructor calls and bindings."""
    if isinstance(count, Attribute) and isinstance(count.value, Name) and count.value.id == "self":
        return True
    return isinstance(count, Name) and count.id not in function.params and count.id not in function.bound \
        and count.id in function.module.bound


def _range_args(iterable: ast.AST) -> list | None:
    if isinstance(iterable, Call) and isinstance(iterable.func, Name) and iterable.func.id == "range" \
            and 1 <= len(iterable.args) <= 3 and not iterable.keywords \
            and not any(isinstance(a, Starred) for a in iterable.args):
        return list(iterable.args)
    return None


def _int(expr: ast.AST) -> int | None:
    if isinstance(expr, Constant) and type(expr.value) is int:
        return expr.value
    if isinstance(expr, UnaryOp) and isinstance(expr.op, USub) and isinstance(expr.operand, Constant) \
            and type(expr.operand.value) is int:
        return -expr.operand.value
    return None
