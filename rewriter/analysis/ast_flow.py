"""Traced values: which expressions inside a jit context are tracers, which are Python values, read
on CPython's `ast` (issue 45; the rules ask it as AstFile.traced).

A forward data flow over each traced function. Parameters that the transform traces
are the sources; a value computed from a traced value is traced, except what is static by
construction: `.shape`, `.ndim`, `.dtype`, `len()`, `isinstance()`, `x is None`, PhiML `Shape`
methods, `.available`, `math.always_close`. Everything else (module constants, literals, static
arguments, `self` configuration) is a Python value at trace time: a program cannot branch on a
tracer without going through a parameter.

A list, tuple, set or dict built in the function, or a parameter declared one (`xs: list`,
`Sequence[Tensor]`, `Optional[dict]`: `declared`), may hold tracers (`Value.container`), but its length
and its truth are Python values: iterating it and `if xs:` are static. So is `if leaves and extra:` of
two lists, or of a name bound to a list in one branch and to `None` in another (`merge`). A PhiML
`Shape` (`Value.shape`: `batch(x)`, `x.shape`, `(a & b).without('x')`, `s.after_gather(indices)`, a
parameter declared `Shape`) is a Python object while tracing, whatever tensors it was read from.

The lattice (trace_values.py) has three points: STATIC < UNKNOWN < TRACED. UNKNOWN means "cannot
tell" (an attribute of a traced container may be a static field; a parameter whose static-ness cannot
be read; a type predicate defined elsewhere) and is never rewritten: the codemods report it with the
reason. Branches join, loops iterate to a fixpoint, `isinstance(i, int)` makes `i` static where it
holds, and `zip`/`enumerate` targets bind element-wise. Helpers of the module called from a traced body
are analysed with the join of their call sites' argument values (a nested def also sees its enclosing
function's locals), and a call of a module-level helper, or of a def nested in the calling function
(read with the caller's locals at the call), has the value it returns for those arguments.
Functions handed to jax's loop and branch primitives (`lax.scan(body, ...)`) have every parameter
traced.

The reading was moved here from one on libcst, and keeps that reading's answers where the trees spell a
form differently: a chain `a and b and c` is read nested, `(a and b) and c`; `yield from x` is a Python
value; a subscript's parenthesized tuple is one index; an f-string's value is its expressions' alone.
docs/benchmarks.md ("Readings of the analysis moved to `ast`") has the comparison that proved them equal.
"""
from __future__ import annotations

import ast
from ast import (And, AnnAssign, Assign, AsyncFor, AsyncFunctionDef, AsyncWith, Attribute, AugAssign, Await, BinOp, BitOr, BoolOp,
                 Call, ClassDef, Compare, Constant, Dict, DictComp, Expr, For, FunctionDef, GeneratorExp, Global, If, IfExp, Is,
                 IsNot, JoinedStr, Lambda, List, ListComp, Module, Name, NamedExpr, Nonlocal, Not, Return, Set, SetComp, Slice,
                 Starred, Subscript, Try, Tuple, UnaryOp, While, With, Yield, YieldFrom)
from dataclasses import replace
from typing import Any, Callable, Union

from ..findings import Related, Span
from . import compilers
from .annotations import annotation_of, is_python_value, shape_properties, static_fields
from .ast_globals import bound_module
from .ast_jit import JitAnalysis, positional_params
from .ast_module import AstModule
from .ast_names import dotted
from .ast_structure import enclosing_function
from .callsites import CallSites, ParamRole, Role, arguments, parameters
from .installed import is_type_predicate
from .installed import static_fields as installed_static_fields
from .jit_contexts import JitContext
from .scope_model import GlobalScope
from .static_names import (PYTREE_LISTS, STRUCTURE_KEEPING, CONCRETIZING_CALLS, CONCRETIZING_METHODS, CONTAINER_ANNOTATIONS, PHIML_STATIC_ANNOTATIONS,
                           PYTHON_SCALAR_ANNOTATIONS, SHAPE_ATTRIBUTES, SHAPE_CALLS, SHAPE_METHODS, STATIC_ATTRIBUTES,
                           STATIC_CALLS, STATIC_FUNCTION_NAMES, STATIC_METHODS, STORING, TENSOR_ATTRIBUTES, is_dtype_parameter)
from .trace_values import (ARRAY_LIBRARIES, FALSE_WHILE_TRACING, MAX_ANALYSES, MAX_HELPER_DEPTH, PRIMITIVE_NAMES, PRIMITIVES,
                           SHAPE, STATIC, FunctionFlow, Step, Trace, Value, contained,
                           element_of, jax_operation, join, join_env, leaves_of, merge, staged, static_module,
                           transform_static_default, truth, value_key)

Function = Union[FunctionDef, AsyncFunctionDef, Lambda]
_DEFS = (FunctionDef, AsyncFunctionDef)
_FUNCTIONS = (FunctionDef, AsyncFunctionDef, Lambda)
_SCOPES = (FunctionDef, AsyncFunctionDef, Lambda, ClassDef)
_STRINGS = (str, bytes)


class _Lines:
    """Where a node is, as a derivation's step prints it: `line 12`, or a notebook cell's label."""

    __slots__ = ("line_label",)

    def __init__(self, line_label=lambda line: f"line {line}") -> None:
        self.line_label = line_label

    def label(self, node: ast.AST | Span) -> str:
        return self.line_label(node.line if isinstance(node, Span) else node.lineno)  # type: ignore[attr-defined]


def _parameter(param: ast.arg, text: str) -> Step:
    """The source of a derivation: the parameter `param`, and why it is traced (or may be)."""
    return Step(f"`{param.arg}`", text, param)


def last_name(node: ast.AST) -> str | None:
    """`c` for `a.b.c`, `f` for `f`."""
    if isinstance(node, Attribute):
        return node.attr
    return node.id if isinstance(node, Name) else None


def root_node(node: ast.AST) -> Name | None:
    """`a` for `a.b[i].c`."""
    while isinstance(node, (Attribute, Subscript)):
        node = node.value
    return node if isinstance(node, Name) else None


class _Flow:
    """Evaluates one function body; `env` maps local names to values."""

    def __init__(self, module: AstModule, flow: FunctionFlow, calls: list, returns_of=None,
                 python_results: frozenset[str] = frozenset(), data: set | frozenset = frozenset(), lines=None) -> None:
        self.module = module
        self.resolver = module.names
        self.flow = flow
        self.data = data
        self.python_results = python_results
        self.returns_of = returns_of
        self.returned: list[Value] = []
        self.returned_parts: list[list[Value] | None] = []
        self.call_parts: dict[int, list[Value] | None] = {}
        self.calls = calls
        self.lines = lines

    # -- statements ----------------------------------------------------------------------
    def block(self, statements: list, env: dict[str, Value]) -> dict[str, Value]:
        for stmt in statements:
            env = self.statement(stmt, env)
        return env

    def statement(self, stmt: ast.stmt, env: dict[str, Value]) -> dict[str, Value]:
        if isinstance(stmt, If):
            self.record(stmt.test, truth(self.expr(stmt.test, env)), env)
            taken = self.block(stmt.body, {**env, **dict.fromkeys(_narrowed(stmt.test), STATIC)})
            other = self.block(stmt.orelse, dict(env))
            return join_env(taken, other)
        if isinstance(stmt, (For, AsyncFor)):
            iterated = self.expr(stmt.iter, env)
            self.record(stmt.iter, self.trip_count(stmt.iter, env, iterated), env)
            loop_env = dict(env)
            for _ in range(4):
                inner = dict(loop_env)
                self.bind_element(stmt.target, stmt.iter, iterated, inner, stmt)
                after = self.block(stmt.body, inner)
                joined = join_env(loop_env, after)
                if joined == loop_env:
                    break
                loop_env = joined
            return self.block(stmt.orelse, loop_env)
        if isinstance(stmt, While):
            loop_env = dict(env)
            for _ in range(4):
                self.record(stmt.test, truth(self.expr(stmt.test, loop_env)), loop_env)
                after = self.block(stmt.body, dict(loop_env))
                joined = join_env(loop_env, after)
                if joined == loop_env:
                    break
                loop_env = joined
            self.record(stmt.test, truth(self.expr(stmt.test, loop_env)), loop_env)
            return self.block(stmt.orelse, loop_env)
        if isinstance(stmt, (With, AsyncWith)):
            for item in stmt.items:
                value = self.expr(item.context_expr, env)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, value, env, stmt)
            return self.block(stmt.body, env)
        if type(stmt) is Try:  # (not `try: ... except*`: not read)
            env = self.block(stmt.body, env)
            for handler in stmt.handlers:
                env = join_env(env, self.block(handler.body, dict(env)))
            env = self.block(stmt.orelse, env)
            return self.block(stmt.finalbody, env)
        if isinstance(stmt, (*_DEFS, ClassDef)):
            env = dict(env)
            env[stmt.name] = STATIC  # a function object; its body is not part of this flow
            return env
        return self.small(stmt, env)

    def small(self, small: ast.stmt, env: dict[str, Value]) -> dict[str, Value]:
        if isinstance(small, Assign):
            value = self.expr(small.value, env)
            for target in small.targets:
                self.bind(target, value, env, small, small.value)
        elif isinstance(small, AnnAssign) and small.value is not None:
            self.bind(small.target, self.expr(small.value, env), env, small, small.value)
        elif isinstance(small, AugAssign):
            held, added = self.expr(small.target, env), self.expr(small.value, env)
            value = merge(held, added) if held.container else join(held, added)  # (`xs += [v]`: a list still)
            self.bind(small.target, value, env, small)
        elif isinstance(small, Expr):
            self.expr(small.value, env)
        elif isinstance(small, Return) and small.value is not None:
            returned = small.value
            if isinstance(returned, Tuple) and returned.elts and not any(isinstance(e, Starred) for e in returned.elts):
                parts = [self.expr(e, env) for e in returned.elts]  # (a tuple's value joins them)
                self.returned.append(contained(join(*parts)))
                self.returned_parts.append(parts)
            else:
                self.returned.append(self.expr(returned, env))
                self.returned_parts.append(None)
        elif isinstance(small, (Global, Nonlocal)):
            places = self.module.declared_names(small)
            for name in small.names:
                declared = f"`{name}` is declared {type(small).__name__.lower()}"
                env[name] = Value(Trace.UNKNOWN, (Step(declared, f"{declared} here", places.get(name, small), self.lines),))
        return env

    def bind(self, target: ast.AST, value: Value, env: dict[str, Value], stmt: ast.AST, source: ast.AST | None = None) -> None:
        if isinstance(target, Name):
            if value.concretized:
                value = STATIC  # `n = int(x)`: wherever the program gets past the conversion, `n` is a Python value
            step = Step(f"`{target.id}`", f"`{target.id}` is assigned here", target, self.lines)
            env[target.id] = value.via(step, same_object=True) if not value.static else value
            previous = self.flow.bound.get(target.id)
            self.flow.bound[target.id] = env[target.id] if previous is None else merge(previous, env[target.id])
        elif isinstance(target, (Tuple, List)):
            elements = source.elts if isinstance(source, (Tuple, List)) and len(source.elts) == len(target.elts) else None
            callee = last_name(source.func) if isinstance(source, Call) else None
            flattened = callee in ("tree_flatten", "flatten") and len(target.elts) == 2  # leaves, treedef: the definition is static
            returned = self._returned_parts(source, target)
            for i, el in enumerate(target.elts):
                part = self.expr(elements[i], env) if elements is not None and not isinstance(elements[i], Starred) \
                    else returned[i] if returned is not None else element_of(value)
                if isinstance(el, Starred) or flattened and i == 0 and callee == "tree_flatten":
                    part = contained(part)  # `*rest` is a list; so are a tree's leaves
                self.bind(el.value if isinstance(el, Starred) else el, STATIC if flattened and i == 1 else part, env, stmt)
        elif isinstance(target, Starred):
            self.bind(target.value, contained(value), env, stmt)  # `*rest`: a list
        elif isinstance(target, Subscript) and isinstance(target.value, Name):
            name = target.value.id  # arr[i] = v: the container now holds v
            held = env.get(name, STATIC)
            env[name] = contained(join(held, value)) if held.container else join(held, value)  # (`d[k] = v`: a dict still)

    def _returned_parts(self, source: ast.AST | None, target: Tuple | List) -> list[Value] | None:
        """`a, b = helper(...)`: the values of the tuple literal every `return` of the module helper gives,
        element by element, when they match the targets."""
        if not isinstance(source, Call) or not isinstance(source.func, Name) \
                or any(isinstance(e, Starred) for e in target.elts):
            return None
        parts = self.call_parts.get(id(source))
        if parts is None or len(parts) != len(target.elts):
            return None
        return [p.via(f"returned by `{source.func.id}()`", same_container=True) for p in parts]

    def record(self, node: ast.AST, value: Value, env: dict[str, Value]) -> None:
        previous = self.flow.tests.get(id(node))
        self.flow.tests[id(node)] = value if previous is None else join(previous, value)
        seen = self.flow.envs.get(id(node))
        self.flow.envs[id(node)] = dict(env) if seen is None else join_env(seen, env)

    # -- loops ---------------------------------------------------------------------------
    def _range_args(self, iterable: ast.AST) -> list[ast.expr] | None:
        if isinstance(iterable, Call) and isinstance(iterable.func, Name) and iterable.func.id == "range" \
                and "builtins.range" in self._qualified(iterable.func):
            return [value for _, value, _ in arguments(iterable)]
        return None

    def trip_count(self, iterable: ast.expr, env, iterated: Value) -> Value:
        """How many times the loop runs."""
        args = self._range_args(iterable)
        if args is not None:
            return join(*(self.expr(a, env) for a in args))
        if iterated.container:
            return STATIC  # a list or tuple built here: as many as it holds
        if iterated.traced:
            return STATIC  # iterating over a traced array or list: its length is part of its shape
        if isinstance(iterable, Call) and self._qualified(iterable.func) & PYTREE_LISTS:
            return STATIC  # a pytree's leaves: how many is its structure, static under every jit
        return iterated

    def bind_element(self, target: ast.AST, iterable: ast.expr, iterated: Value, env, stmt) -> None:
        """Bind a loop target: element-wise for `zip(a, b)` and `enumerate(a)` (the index is static)."""
        parts = None
        if isinstance(iterable, Call) and isinstance(iterable.func, Name) and not iterable.keywords \
                and not any(isinstance(a, Starred) for a in iterable.args):
            builtin = self._qualified(iterable.func)
            if "builtins.zip" in builtin or iterable.func.id in ("zip", "safe_zip"):
                parts = [self.expr(a, env) for a in iterable.args]
            elif "builtins.enumerate" in builtin and len(iterable.args) == 1:
                parts = [STATIC, self.expr(iterable.args[0], env)]
        elif isinstance(iterable, Call) and isinstance(iterable.func, Attribute) and not iterable.args \
                and not iterable.keywords and iterable.func.attr in ("items", "keys"):
            # a dict's keys are Python values: a tracer cannot be one (it is unhashable)
            if iterable.func.attr == "keys":
                self.bind(target, STATIC, env, stmt)
                return
            parts = [STATIC, self.expr(iterable.func.value, env)]
        if parts is not None and isinstance(target, (Tuple, List)) and len(target.elts) == len(parts) \
                and not any(isinstance(e, Starred) for e in target.elts):
            for element, part in zip(target.elts, parts):
                self.bind(element, element_of(part), env, stmt)
            return
        self.bind(target, element_of(iterated), env, stmt)

    # -- expressions ----------------------------------------------------------------------
    def expr(self, node: ast.AST, env: dict[str, Value]) -> Value:
        method = _EXPRESSIONS.get(type(node))
        if method is not None:
            return method(self, node, env)
        if isinstance(node, (Constant, Lambda, YieldFrom)):
            return STATIC  # (`yield from x`: a Python value, see the module's docstring)
        return join(*self._parts(node, env))

    def _parts(self, node: ast.AST, env) -> list[Value]:
        """Values of the expressions inside `node`, in the order written, looking through elements,
        arguments and f-string parts."""
        out = []
        for child in _in_order(node):
            if isinstance(child, Starred):
                out.append(self.expr(child.value, env))
            elif isinstance(child, ast.expr):
                out.append(self.expr(child, env))
            elif isinstance(child, ast.keyword):
                out.append(self.expr(child.value, env))
        return out

    def _name(self, node: Name, env) -> Value:
        if node.id in env:
            return env[node.id]
        return STATIC  # a module global, import or builtin: a constant at trace time

    def _attribute(self, node: Attribute, env) -> Value:
        base = self.expr(node.value, env)
        attr = node.attr
        if attr == "available" and base.traced and self.flow.framework == "phiml":
            return FALSE_WHILE_TRACING  # PhiML: the values of a tracer are not available
        if attr == "shape" or base.shape and attr in SHAPE_ATTRIBUTES:
            return SHAPE
        if attr in STATIC_ATTRIBUTES or base.static:
            return STATIC
        if attr in base.fields:
            return STATIC  # a Python-valued field of a declared value class, under filter_jit
        if base.trace is Trace.TRACED and attr not in TENSOR_ATTRIBUTES:
            return Value(Trace.UNKNOWN, (*base.why, f"`.{attr}` (may be a static field)"), base.sources)
        return base.via(f"`.{attr}`")

    def _subscript(self, node: Subscript, env) -> Value:
        parts = [self.expr(node.value, env)]
        index = node.slice
        elements = index.elts if isinstance(index, Tuple) and not self.module.parenthesized(index) else [index]
        for element in elements:
            if isinstance(element, Slice):
                parts += [self.expr(x, env) for x in (element.lower, element.upper, element.step) if x is not None]
            else:
                parts.append(self.expr(element, env))
        if parts[0].entries and type(index) is Constant:
            for key, value in reversed(parts[0].entries):  # (the last of a key written twice)
                if key == index.value and type(key) is type(index.value):  # `config["steps"]` of `{"steps": 10, ...}`
                    return value.via(parts[0].why[-1]) if parts[0].why else value
        return join(*parts)

    def _call(self, node: Call, env) -> Value:
        func = node.func
        self.call_parts.pop(id(node), None)  # (what an earlier evaluation of this call returned)
        written = arguments(node)
        args = [self.expr(value, env) for _, value, _ in written]
        if last_name(func) in PRIMITIVE_NAMES:
            primitive = self._qualified(func) & PRIMITIVES
            for _, value, _ in written if primitive else ():
                if isinstance(value, (Name, Lambda)):
                    self.flow.bodies.append((value, sorted(primitive)[0]))
        if isinstance(func, Attribute):
            receiver = self.expr(func.value, env)
            attr = func.attr
            if receiver.shape and attr in SHAPE_METHODS:
                return SHAPE  # `shape.without(...)`, `shape.after_gather(indices)`: a Shape whatever its arguments
            if attr in STATIC_METHODS:
                return STATIC
            if attr in CONCRETIZING_METHODS and not written:
                return self._concretized(receiver, f"`.{attr}()`")
            if receiver.static and self.python_results and dotted(func) in self.python_results \
                    and self._module_bound(root_node(func)):
                return STATIC  # `helpers.is_scalar(x)`: another module's function that returns a Python value
            if isinstance(func.value, Name) and func.value.id in env and any(a.traced for a in args):
                held = env[func.value.id]
                env[func.value.id] = join(held, *args)  # xs.append(tracer)
                if held.container and attr in STORING:
                    env[func.value.id] = contained(env[func.value.id])  # still the list it was
            qualified = self._qualified(func) if receiver.static else set()
            if qualified & SHAPE_CALLS:
                return SHAPE  # `math.batch(x)`
            if qualified & STATIC_CALLS or attr in STATIC_FUNCTION_NAMES or static_module(qualified) \
                    or any(map(is_type_predicate, qualified)):
                return STATIC  # an installed function that asks about types (predicates.py)
            kept = _structure_kept(node, qualified, args)
            if kept is not None:
                return kept
            if qualified and qualified <= PYTREE_LISTS:
                return leaves_of(attr, args)
            if receiver.static and attr.startswith(("is_", "has_")) and not all(a.static for a in args) \
                    and not any(q.startswith(ARRAY_LIBRARIES) for q in qualified):
                return Value(Trace.UNKNOWN, (f"`{attr}()` is a predicate defined elsewhere (often about types)",))
            if receiver.static and all(a.static for a in args):
                return self._staged(func, qualified)
            result = join(receiver, *args).via(f"`.{attr}()`")
            return staged(result) if jax_operation(qualified) else result
        if isinstance(func, Name):
            name = func.id
            if name in env:
                self.calls.append((func, node, args))  # a local def: analysed as a helper with these arguments
                found = self.returns_of(func, node, args, env) if self.returns_of is not None else None
                if found is not None:  # a def nested here, called here: what it returns, reading these locals
                    return self._returned(func, node, found)
                return join(env[name], *args)
            if name in self.python_results and self._module_bound(func):
                return STATIC  # another module's function that returns a Python value whatever it is given
            qualified = self._qualified(func)
            if qualified and qualified <= CONCRETIZING_CALLS:
                return self._concretized(join(*args), f"`{name}()`")
            if qualified & SHAPE_CALLS:
                return SHAPE  # `batch(x)`
            if qualified & STATIC_CALLS or name in STATIC_FUNCTION_NAMES or static_module(qualified) \
                    or any(map(is_type_predicate, qualified)):
                return STATIC  # an installed function that asks about types (predicates.py)
            kept = _structure_kept(node, qualified, args)
            if kept is not None:
                return kept
            if qualified and qualified <= PYTREE_LISTS:
                return leaves_of(name, args)
            found = self.returns_of(func, node, args) if self.returns_of is not None else None
            if found is not None:  # a helper of this module: what it returns for these arguments
                self.calls.append((func, node, args))
                return self._returned(func, node, found)
            if name.startswith(("is_", "has_")) and not any(q.startswith(ARRAY_LIBRARIES) for q in qualified) \
                    and not all(a.static for a in args):
                return Value(Trace.UNKNOWN, (f"`{name}()` is a predicate defined elsewhere (often about types)",))
            if all(a.static for a in args):
                self.calls.append((func, node, args))
                return self._staged(func, qualified)
            self.calls.append((func, node, args))
            result = join(*args).via(f"`{name}()`")
            return staged(result) if jax_operation(qualified) else result
        return join(self.expr(func, env), *args)

    def _concretized(self, value: Value, step: str) -> Value:
        """What a conversion to a Python value gives."""
        if compilers.of(self.flow.context.transform).concretization == "bakes":
            return value.via(f"{step} (reads the example's value)")
        if not value.traced or value.sources.isdisjoint(self.data):
            return STATIC
        return Value(Trace.TRACED, (*value.why, f"{step} (raises on a tracer)")[-6:], value.sources, staged=value.staged,
                     concretized=True)

    def _module_bound(self, name: Name | None) -> bool:
        """`name` reads the one module-level binding of its name."""
        if name is None:
            return False
        found = self.resolver.assignments(name)
        if not found or not all(isinstance(a.scope, GlobalScope) for a in found):
            return False
        if any(enclosing_function(self.resolver, getattr(a, "node", None) or name) is not None for a in found):
            return False
        return len(found) == 1 or {bound_module(a) for a in found} == {name.id}

    def _returned(self, func: Name, node: Call, found: tuple[Value, list[Value] | None]) -> Value:
        returned, self.call_parts[id(node)] = found
        return returned.via(f"returned by `{func.id}()`", same_container=True)

    def _staged(self, func: ast.AST, qualified: set[str]) -> Value:
        """Under `jax.jit` every jax operation is staged out: `jnp.zeros(3)` is a tracer, not a constant."""
        if self.flow.framework == "jax" and jax_operation(qualified):
            name = sorted(qualified)[0]
            return Value(Trace.TRACED, (f"`{name}(...)` inside `{self.flow.context.name}`: jax operations are staged "
                                        "out under jit (a tracer even for constant arguments)",), staged=True)
        return STATIC

    def _qualified(self, func: ast.AST) -> set[str]:
        try:
            return self.resolver.qualified_names(func)
        except Exception:  # a node outside the resolved module (should not happen): no claim
            return set()

    def _comparison(self, node: Compare, env) -> Value:
        if all(isinstance(op, (Is, IsNot)) for op in node.ops):
            return STATIC  # identity: `x is None` is decided at trace time
        if any(_string(e) for e in (node.left, *node.comparators)):
            return STATIC  # compared with a string: a tensor never is, so this is a Python value
        return join(self.expr(node.left, env), *(self.expr(c, env) for c in node.comparators))

    def _boolean(self, node: BoolOp, env) -> Value:
        return self._chain(node.values, isinstance(node.op, And), env)

    def _chain(self, values: list[ast.expr], conjunction: bool, env) -> Value:
        """`a and b and c` read nested: `(a and b) and c`."""
        left = self._chain(values[:-1], conjunction, env) if len(values) > 2 else self.expr(values[0], env)
        if left.const is not None and left.const is not conjunction:
            return left  # `False and ...` / `True or ...`: the right side never runs while tracing
        if conjunction:  # `isinstance(i, int) and i < 0`: the right side sees a Python i
            env = {**env, **dict.fromkeys([n for v in values[:-1] for n in _narrowed(v)], STATIC)}
        right = self.expr(values[-1], env)
        if left.const is not None and right.static:
            return right  # `True and <static>` is that static value
        return merge(left, right)  # one of the two objects: `leaves and extra` of two lists is a list

    def _unary(self, node: UnaryOp, env) -> Value:
        value = self.expr(node.operand, env)
        if isinstance(node.op, Not) and value.const is not None:
            return Value(Trace.STATIC, const=not value.const)
        if isinstance(node.op, Not):
            value = truth(value)  # `not xs`: a container's length decides
        return join(value) if value.const is None else STATIC

    def _if_expression(self, node: IfExp, env) -> Value:
        test = truth(self.expr(node.test, env))
        self.record(node.test, test, env)
        narrowed = {**env, **dict.fromkeys(_narrowed(node.test), STATIC)}
        return join(test, self.expr(node.body, narrowed), self.expr(node.orelse, env))

    def _named(self, node: NamedExpr, env) -> Value:
        value = self.expr(node.value, env)
        self.bind(node.target, value, env, node)
        return value

    def _comprehension(self, node, env, parts) -> Value:
        inner = dict(env)
        for generator in node.generators:
            iterated = self.expr(generator.iter, inner)
            self.bind_element(generator.target, generator.iter, iterated, inner, node)
            for condition in generator.ifs:
                self.expr(condition, inner)
        return join(*(self.expr(p, inner) for p in parts))

    def _list_comprehension(self, node, env) -> Value:
        return contained(self._comprehension(node, env, [node.elt]))

    def _generator(self, node, env) -> Value:  # (iterating it runs the loops: their counts decide)
        return self._comprehension(node, env, [node.elt])

    def _dict_comprehension(self, node, env) -> Value:
        return contained(self._comprehension(node, env, [node.key, node.value]))

    def _display(self, node, env) -> Value:
        parts = self._parts(node, env)
        joined = join(*parts)
        if type(node) is not Dict or joined.static:
            return contained(joined)
        values = _entries(node, parts)
        if all(type(k) is Constant and type(k.value) in (str, int) for k in node.keys):  # type: ignore[union-attr]
            entries = tuple((k.value, v) for k, v in zip(node.keys, values))  # type: ignore[union-attr]
            return Value(joined.trace, joined.why, joined.sources, container=True, staged=joined.staged,
                         concretized=joined.concretized, entries=entries)
        if joined.traced and any(v.static and not v.shape for v in values):
            # `{**defaults, **overrides}`: an entry read by key may be either
            return Value(Trace.UNKNOWN, (*joined.why, "a dict of Python values and traced ones"), joined.sources,
                         container=True)
        return contained(joined)


_EXPRESSIONS: dict[type, Callable[[_Flow, Any, dict[str, Value]], Value]] = {
    Name: _Flow._name, Attribute: _Flow._attribute, Subscript: _Flow._subscript, Call: _Flow._call,
    Compare: _Flow._comparison, BoolOp: _Flow._boolean, UnaryOp: _Flow._unary, IfExp: _Flow._if_expression,
    NamedExpr: _Flow._named, ListComp: _Flow._list_comprehension, SetComp: _Flow._list_comprehension,
    GeneratorExp: _Flow._generator, DictComp: _Flow._dict_comprehension,
    List: _Flow._display, Tuple: _Flow._display, Set: _Flow._display, Dict: _Flow._display,
}


def _entries(node: Dict, parts: list[Value]) -> list[Value]:
    """The values among a dict display's `parts` (_in_order: keys and values interleaved, `**d` alone)."""
    values = []
    i = 0
    for key in node.keys:
        i += key is not None
        values.append(parts[i])
        i += 1
    return values


def _in_order(node: ast.AST) -> list[ast.AST]:
    """The children of `node` as written (a dict's keys and values interleaved, `**d` alone)."""
    if isinstance(node, Dict):
        out: list[ast.AST] = []
        for key, value in zip(node.keys, node.values):
            if key is not None:
                out.append(key)
            out.append(value)
        return out
    if isinstance(node, Call):
        return [node.func, *(value for _, value, _ in arguments(node))]
    if isinstance(node, JoinedStr):  # (its text is no expression: see the module's docstring)
        return [value for value in node.values if not isinstance(value, Constant)]
    return list(ast.iter_child_nodes(node))


def _string(node: ast.AST) -> bool:
    return isinstance(node, JoinedStr) or isinstance(node, Constant) and type(node.value) in _STRINGS


def _narrowed(test: ast.AST) -> list[str]:
    """Names `test` proves to be Python values when true."""
    if isinstance(test, BoolOp) and isinstance(test.op, And):
        return [n for value in test.values for n in _narrowed(value)]
    if isinstance(test, Call) and isinstance(test.func, Name) and test.func.id == "isinstance":
        written = arguments(test)
        if len(written) != 2 or not isinstance(written[0][1], Name):
            return []
        types = written[1][1]
        elements = [e.value if isinstance(e, Starred) else e for e in types.elts] \
            if isinstance(types, (Tuple, List)) else [types]
        for element in elements:
            text = element.attr if isinstance(element, Attribute) else element.id if isinstance(element, Name) else "?"
            if text == "?" or any(word in text.lower() for word in ("array", "tensor", "tracer", "jax")):
                return []
        return [written[0][1].id]
    return []


def _structure_kept(node: Call, qualified: set[str], args: list[Value]) -> Value | None:
    positions = {STRUCTURE_KEEPING[q] for q in qualified if q in STRUCTURE_KEEPING}
    if len(positions) != 1:
        return None
    position = positions.pop()
    written = arguments(node)
    if len(written) <= position or written[position][0] is not None or written[position][2]:
        return None
    tree = args[position]
    if not tree.fields:
        return None
    joined = join(*args)
    return Value(joined.trace, (*tree.why, f"`{last_name(node.func)}()`"), joined.sources, fields=tree.fields,
                 staged=joined.staged) if joined.trace is not Trace.STATIC else STATIC


def _annotation(param: ast.arg) -> str | None:
    """The annotation's last name, a string annotation's text, `?` otherwise."""
    ann = param.annotation
    if ann is None:
        return None
    if isinstance(ann, Name):
        return ann.id
    if isinstance(ann, Attribute):
        return ann.attr
    if isinstance(ann, Constant) and type(ann.value) in _STRINGS:
        return ann.value  # type: ignore[return-value]
    return "?"


def all_params(fn: Function) -> list[ast.arg]:
    """The parameters in order: named ones, then `*args`, then `**kwargs`."""
    args = fn.args
    return [*parameters(fn), *([args.vararg] if args.vararg else []), *([args.kwarg] if args.kwarg else [])]


class TracedAnalysis:
    """Flows of every traced function in a module, computed once."""

    def __init__(self, module: AstModule, jit: JitAnalysis, facts: dict | None = None, project=None,
                 open_module: str = "", line_label=None) -> None:
        self.module = module
        self.resolver = module.names
        self.jit = jit
        self.facts = facts or {}
        self.project = project
        self.open_module = open_module
        self.callsites = CallSites(module, project, open_module)
        self.lines = _Lines(line_label) if line_label is not None else _Lines()
        self.python_results = frozenset(project.python_results) if project else frozenset()
        self.flows: dict[int, FunctionFlow] = {}
        self._returns: dict[tuple, tuple[Value, list[Value] | None]] = {}
        self._returning: list[int] = []
        self._cut = False
        self._returns_cut: dict[tuple, tuple[Value, list[Value] | None]] = {}
        self._roles: dict[int, dict[str, ParamRole]] = {}
        self._config: dict[tuple[int, str], ParamRole] = {}
        self._data: set[tuple[int, str]] = set()
        self._generators: dict[int, bool] = {}
        self._known_properties: tuple[dict, dict] | None = None
        self._run()

    def _walker(self, flow: FunctionFlow, calls: list, returns_of=None) -> _Flow:
        return _Flow(self.module, flow, calls, returns_of, self.python_results, self._data, self.lines)

    def returns_of(self, flow: FunctionFlow, name: Name, call: Call, args: list[Value],
                   env: dict[str, Value] | None = None) -> tuple[Value, list[Value] | None] | None:
        """What a def of this module returns when called with these argument values: its value, and each element of the tuple every `return` gives when they all give one of one length (None: not known)."""
        functions = self.jit.functions_denoted(name)
        if len(functions) != 1 or not isinstance(functions[0], _DEFS):
            return None
        fn = functions[0]
        closure: dict[str, Value] = {}
        if env is not None:
            if self.resolver.parent(fn) is self.module.tree \
                    or enclosing_function(self.resolver, fn) is not enclosing_function(self.resolver, call):
                return None  # (a local name bound to a module def, or a def nested elsewhere)
            closure = env
        elif self.resolver.parent(fn) is not self.module.tree:
            return None  # a nested def also reads its enclosing function's locals: read where it is called
        return self._returned_by(flow, fn, self._with_properties(fn, _bind_call(fn, call, args)), closure)

    def _returned_by(self, flow: FunctionFlow, fn: FunctionDef | AsyncFunctionDef, params: dict[str, Value],
                     closure: dict[str, Value]) -> tuple[Value, list[Value] | None] | None:
        key = (id(fn), flow.framework, value_key(params), value_key({k: v for k, v in closure.items() if k not in params}))
        if key in self._returns:
            return self._returns[key]
        stacked = (key, len(self._returning))
        if stacked in self._returns_cut:
            return self._returns_cut[stacked]
        if id(fn) in self._returning:
            self._cut = True
            return None
        if len(self._returning) >= MAX_HELPER_DEPTH:
            self._cut = True
            why = f"`{fn.name}()` is called more than {MAX_HELPER_DEPTH} helpers deep: not followed"
            return Value(Trace.UNKNOWN, (why,)), None
        if self._generator(fn):
            return None
        self._returning.append(id(fn))
        outer_cut, self._cut = self._cut, False
        try:
            shadow = FunctionFlow(flow.context, flow.framework, params)
            walker = self._walker(shadow, [], lambda *a: self.returns_of(shadow, *a))
            walker.block(fn.body, {**closure, **params})
            value = merge(*walker.returned) if walker.returned else STATIC
            parts = walker.returned_parts
            sizes = {len(p) if p is not None else None for p in parts}
            tuples = [p for p in parts if p is not None]
            elements = [merge(*(p[i] for p in tuples)) for i in range(len(tuples[0]))] \
                if parts and len(sizes) == 1 and len(tuples) == len(parts) else None
        finally:
            self._returning.pop()
            cut, self._cut = self._cut, outer_cut or self._cut
        if cut:
            self._returns_cut[stacked] = value, elements
        else:
            self._returns[key] = value, elements
        return value, elements

    def _generator(self, fn: FunctionDef | AsyncFunctionDef) -> bool:
        found = self._generators.get(id(fn))
        if found is None:
            found = self._generators[id(fn)] = _yields(fn)
        return found

    def value_at(self, anchor: ast.AST, expr: ast.AST) -> Value:
        """The value of `expr` evaluated where the recorded test/iterable `anchor` is evaluated."""
        flow = self.flow_containing(anchor)
        if flow is None or id(anchor) not in flow.envs:
            return Value(Trace.UNKNOWN, ("not inside an analysed traced function",))
        shadow = FunctionFlow(flow.context, flow.framework, flow.params)
        return self._walker(shadow, []).expr(expr, dict(flow.envs[id(anchor)]))

    def value_anywhere(self, expr: ast.AST, function: Function | None = None) -> Value | None:
        """The value of `expr` in the traced function whose body holds it (or in `function`: `expr` is no
        node of the tree), each local name the join of all its bindings; None outside an analysed function."""
        flow = self.flow_containing(expr) if function is None else self.flows.get(id(function))
        if flow is None:
            return None
        shadow = FunctionFlow(flow.context, flow.framework, flow.params)
        return self._walker(shadow, []).expr(expr, {**flow.params, **flow.bound})

    def flow_containing(self, node: ast.AST) -> FunctionFlow | None:
        function = enclosing_function(self.resolver, node)
        return self.flows.get(id(function)) if function is not None else None

    # -- parameters ----------------------------------------------------------------------
    def roles(self, context: JitContext) -> dict[str, ParamRole]:
        key = id(context.function)
        given = self.facts.get(self.qualified_name(context.function)) if self.facts else None
        if key not in self._roles and given is not None:
            self._roles[key] = dict(given)
        if key not in self._roles:
            self._roles[key] = self.callsites.roles(context.function, context.how, context.application, context.static_params)
        return self._roles[key]

    def qualified_name(self, fn: Function) -> str | None:
        """`f` for a def at module level (never `Class.f`: the names `Settings.callsite_facts` keys)."""
        if not isinstance(fn, _DEFS):
            return None
        parent = self.resolver.parent(fn)
        while parent is not None and not isinstance(parent, (Module, ClassDef, *_DEFS)):
            parent = self.resolver.parent(parent)
        return fn.name if isinstance(parent, Module) else None

    def facts_found(self) -> tuple:
        out = []
        for context in self.jit.contexts:
            name = self.qualified_name(context.function)
            if context.how != "called" and name is not None and context.static_params is not None:
                out.append((name, tuple(sorted(self.roles(context).items()))))
        return tuple(out)

    def is_config(self, source: tuple[int, str]) -> bool:
        return source in self._config

    def _direct_params(self, context: JitContext) -> dict[str, Value]:
        fn = context.function
        framework = context.framework
        api = context.transform.api.name
        semantics = compilers.of(context.transform)
        static = context.static_params
        roles = self.roles(context) if static is not None else {}
        out: dict[str, Value] = {}
        params = all_params(fn)
        positional = [*fn.args.posonlyargs, *fn.args.args]
        is_method = isinstance(fn, _DEFS) and params and params[0].arg in ("self", "cls") and any(params[0] is p for p in positional)
        for i, param in enumerate(params):
            name = param.arg
            ann = _annotation(param)
            if static is None:
                out[name] = Value(Trace.UNKNOWN, (_parameter(param, f"`{name}`: the static arguments of `{api}` cannot be read statically"),))
            elif name in static:
                out[name] = STATIC
            elif param is fn.args.kwarg and static - {p.arg for p in params}:
                out[name] = Value(Trace.UNKNOWN, (Step(f"`**{name}`", f"`**{name}` may carry the static arguments {sorted(static)}",
                                                       param),))
            elif i == 0 and is_method and framework != "jax":
                out[name] = STATIC  # configuration read through self is a Python value at trace time
            elif i == 0 and is_method:
                out[name] = Value(Trace.UNKNOWN, (_parameter(param, f"`{name}` is passed to `{api}` as a pytree argument"),))
            elif api == "phiml.math.jit_compile_linear" and i > 0 and transform_static_default(context):
                out[name] = STATIC  # jit_compile_linear: all but the first parameter are auxiliary by default
            elif is_dtype_parameter(name, ann):
                out[name] = STATIC  # a dtype cannot be traced: jit requires it static (or None)
            elif framework == "phiml" and ann in PHIML_STATIC_ANNOTATIONS:
                out[name] = STATIC  # PhiML keeps non-tensor, non-number arguments static (auxiliary)
            elif not semantics.traces_scalars and (ann in PYTHON_SCALAR_ANNOTATIONS or is_python_value(param.annotation)):
                out[name] = STATIC
            elif name in roles and roles[name].role in (Role.CONFIG, Role.DEFAULTED) and not semantics.traces_scalars:
                out[name] = STATIC  # a Python value stays one: one trace (or compilation) per value
            elif api == "equinox.filter_jit" and roles.get(name) is not None and roles[name].role is not Role.DATA:
                out[name] = Value(Trace.UNKNOWN, (_parameter(param, f"`{name}`: `equinox.filter_jit` traces only the arrays in it, "
                                                             "and no call in this file shows whether it holds any"),),
                                  fields=self._static_fields(param))
            else:
                how = {"phiml": "auxiliary_args", "jax": "static_argnums/static_argnames"}.get(framework)
                extra = f", not in {how}" if how else ""
                role = roles.get(name)
                if role is not None and role.role in (Role.CONFIG, Role.DEFAULTED):
                    self._config[(id(fn), name)] = role
                    extra += f"; a configuration value: {role.why}"
                elif role is not None and role.role is Role.DATA:
                    self._data.add((id(fn), name))
                out[name] = Value(Trace.TRACED, (_parameter(param, f"`{name}`: parameter of `{context.name}`, traced by `{api}`{extra}"),),
                                  frozenset({(id(fn), name)}),
                                  fields=self._static_fields(param) if api == "equinox.filter_jit" else frozenset())
            out[name] = declared(param, out[name])
        return self._with_properties(fn, out)

    def _with_properties(self, fn, values: dict[str, Value]) -> dict[str, Value]:
        """`values` of `fn`'s parameters, each declared an instance of a class with shape properties
        (`state: State`, whose `dim` returns `self.pos.shape[-1]`) knowing those are Python values; a
        method's `self`, of its own class's."""
        out = values
        for i, param in enumerate(all_params(fn)):
            value = values.get(param.arg)
            if value is None or value.static:
                continue
            properties = self._shape_properties(param.annotation) if param.annotation is not None else \
                self._own_properties(fn) if i == 0 and param.arg == "self" else frozenset()
            if properties - value.fields:
                out = dict(out) if out is values else out
                out[param.arg] = replace(value, fields=value.fields | properties)
        return out

    def _shape_properties(self, annotation: ast.expr) -> frozenset[str]:
        """The shape properties of the class an annotation names: one of this module, or of the project."""
        if isinstance(annotation, Constant) and isinstance(annotation.value, str):  # `"State"`
            annotation = annotation_of(annotation.value)  # type: ignore[assignment]
        own, known = self._properties
        if isinstance(annotation, Name) and annotation.id in own:
            return own[annotation.id]
        if not isinstance(annotation, (Name, Attribute)) or not known:
            return frozenset()
        found = [known.get(q) for q in self.resolver.qualified_names(annotation)]
        return frozenset(found[0]) if len(found) == 1 and found[0] else frozenset()

    def _own_properties(self, fn) -> frozenset[str]:
        parent = self.resolver.parent(fn)
        return frozenset(shape_properties(parent)) if isinstance(parent, ClassDef) else frozenset()

    @property
    def _properties(self) -> tuple[dict[str, frozenset[str]], dict[str, tuple[str, ...]]]:
        """The shape properties of this module's classes by name, and of the project's by absolute name; read once."""
        if self._known_properties is None:
            tree = self.module.tree
            own = {c.name: frozenset(shape_properties(c)) for c in (tree.body if tree is not None else ())
                   if isinstance(c, ClassDef)}
            self._known_properties = own, dict(self.project.shape_properties) if self.project is not None else {}
        return self._known_properties

    def _static_fields(self, param: ast.arg) -> frozenset[str]:
        """The Python-valued fields of the value class `param` is declared as, in this module or an installed one (`diffrax.SaveAt`)."""
        ann = param.annotation
        if not isinstance(ann, (Name, Attribute)):
            return frozenset()
        fields: set[str] = set()
        for qualified in self.resolver.qualified_names(ann):
            fields |= installed_static_fields(qualified)
        if isinstance(ann, Name) and self.module.tree is not None:
            for stmt in self.module.tree.body:
                if isinstance(stmt, ClassDef) and stmt.name == ann.id:
                    fields |= set(static_fields(stmt))
        return frozenset(fields)

    def _run(self) -> None:
        pending: dict[int, tuple[JitContext, dict[str, Value]]] = {}
        order: list[JitContext] = []
        for context in self.jit.contexts:
            if context.how == "called":
                continue
            order.append(context)
            pending[id(context.function)] = (context, self._direct_params(context))
        helper_args: dict[int, dict[str, Value]] = {}
        helpers: dict[int, JitContext] = {id(c.function): c for c in self.jit.contexts if c.how == "called"}
        for context in helpers.values():  # traced from other modules: their callers' values, from the index
            remote = self.jit.remote_traces(context.function)
            if remote and isinstance(context.function, _DEFS):
                values = {p.arg: STATIC for p in all_params(context.function)}
                for trace in remote:
                    for fact in trace.params:
                        if fact.name in values:
                            param = next(p for p in all_params(context.function) if p.arg == fact.name)
                            values[fact.name] = declared(param, join(values[fact.name], _remote_value(fact, param)))
                helper_args[id(context.function)] = values
                pending[id(context.function)] = (context, values)
                order.append(context)
        rounds = 0
        while order and rounds < MAX_ANALYSES:
            rounds += 1
            context = order.pop(0)
            params = pending[id(context.function)][1]
            flow = self._analyse(context, params)
            for callee_name, call, arg_values in flow.calls:
                for fn in self.jit.functions_denoted(callee_name):
                    helper = helpers.get(id(fn))
                    if helper is None or not isinstance(fn, _DEFS):
                        continue
                    values = self._with_properties(fn, _bind_call(fn, call, arg_values))
                    current = helper_args.get(id(fn))
                    merged = values if current is None else join_env(current, values)
                    if merged != current:
                        helper_args[id(fn)] = merged
                        context_of_helper = JitContext(fn, context.transform, "called", None, context)
                        pending[id(fn)] = (context_of_helper, merged)
                        order.append(context_of_helper)
            for expr, primitive in flow.bodies:
                for fn in self.jit.functions_denoted(expr):
                    if id(fn) in pending:
                        continue
                    body = JitContext(fn, context.transform, "called", None, context)
                    pending[id(fn)] = (body, {p.arg: Value(Trace.TRACED, (_parameter(
                        p, f"`{p.arg}`: parameter of a function run by `{primitive}`"),), frozenset()) for p in all_params(fn)})
                    order.append(body)

    def _closure(self, fn: Function) -> dict[str, Value]:
        """For a def nested in an analysed function: the values of the enclosing function's locals it can read."""
        current = enclosing_function(self.resolver, fn)
        outer = self.flows.get(id(current)) if current is not None else None
        if outer is None:
            return {}
        return {**self._closure(outer.context.function), **outer.params, **outer.bound}

    def _analyse(self, context: JitContext, params: dict[str, Value]) -> FunctionFlow:
        fn = context.function
        config = {name: role for (owner, name), role in self._config.items() if owner == id(fn)}
        flow = FunctionFlow(context, context.framework, params, config=config)
        walker = self._walker(flow, flow.calls, lambda *a: self.returns_of(flow, *a))
        env = {**self._closure(fn), **params}
        if isinstance(fn, Lambda):
            walker.expr(fn.body, env)
        else:
            walker.block(fn.body, env)
        self.flows[id(fn)] = flow
        return flow


def _remote_value(fact, param: ast.arg) -> Value:
    """A parameter's value as the project index found it at the traced calls in other modules."""
    if fact.trace == "static":
        return STATIC
    elsewhere = Related.line_of(fact.path, fact.line, fact.origin) if fact.path else None
    step = Step(f"`{fact.name}`", fact.why, param, elsewhere=elsewhere)
    return Value(Trace.TRACED if fact.trace == "traced" else Trace.UNKNOWN, (step,))


def _yields(fn: FunctionDef | AsyncFunctionDef) -> bool:
    """A `yield` or `await` in the def's own body (not in a def, lambda or class nested in it)."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (Yield, YieldFrom, Await)):
            return True
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, _SCOPES))
    return False


def _bind_call(fn: FunctionDef | AsyncFunctionDef, call: Call, values: list[Value]) -> dict[str, Value]:
    """Parameter values of `fn` at one call site (unmatched parameters keep their defaults: static)."""
    positional = positional_params(fn)
    out: dict[str, Value] = {p.arg: STATIC for p in all_params(fn)}
    i = 0
    for (keyword, _, star), value in zip(arguments(call), values):
        if star:
            for name in out:
                out[name] = join(out[name], value)
            continue
        if keyword is not None:
            if keyword in out:
                out[keyword] = join(out[keyword], value)
            continue
        if i < len(positional):
            out[positional[i]] = value
        i += 1
    params = {p.arg: p for p in all_params(fn)}
    return {k: declared(params[k], v.via(_parameter(params[k], f"`{k}`: parameter of helper `{fn.name}`"), same_container=True)
                        if not v.static else v)
            for k, v in out.items()}


def declared(param: ast.arg, value: Value) -> Value:
    """A parameter's value as its annotation declares its kind: declared `Shape`, a Shape; declared a list, tuple, set or dict, a container."""
    if param.annotation is None:
        return value
    kind = declared_kind(param.annotation)
    if kind == "shape":
        return SHAPE
    if kind == "container":
        return contained(value)
    return value


def declared_kind(ann: ast.AST, depth: int = 0) -> str | None:
    """"shape", "container", "none" or None for an annotation: its last name, a subscript's, an `Optional`/`Union`/`a | b` of one kind and `None`."""
    if depth > 4:
        return None
    if isinstance(ann, Constant) and ann.value is None:
        return "none"
    if isinstance(ann, (Name, Attribute)):
        last = last_name(ann)
        return "shape" if last == "Shape" else "container" if last in CONTAINER_ANNOTATIONS else None
    if isinstance(ann, Subscript):
        last = last_name(ann.value)
        if last in ("Optional", "Union"):
            index = ann.slice
            elements = index.elts if isinstance(index, Tuple) else [index]
            kinds = {None if isinstance(e, Slice) else declared_kind(e, depth + 1) for e in elements}
        else:
            return "container" if last in CONTAINER_ANNOTATIONS else None
    elif isinstance(ann, BinOp) and isinstance(ann.op, BitOr):
        kinds = {declared_kind(ann.left, depth + 1), declared_kind(ann.right, depth + 1)}
    else:
        return None
    kinds.discard("none")
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None
