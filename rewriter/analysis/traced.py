"""Traced values: which expressions inside a jit context are tracers, which are Python values.

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

The lattice has three points: STATIC < UNKNOWN < TRACED. UNKNOWN means "cannot tell" (an attribute
of a traced container may be a static field; a parameter whose static-ness cannot be read; a type
predicate defined elsewhere) and is never rewritten: the codemods report it with the reason.
Branches join, loops iterate to a fixpoint, `isinstance(i, int)` makes `i` static where it holds,
and `zip`/`enumerate` targets bind element-wise. Helpers of the module called from a traced body are
analysed with the join of their call sites' argument values (a nested def also sees its enclosing
function's locals), and a call of a module-level helper, or of a def nested in the calling function
(read with the caller's locals at the call), has the value it returns for those arguments.
Functions handed to jax's loop and branch primitives (`lax.scan(body, ...)`) have every parameter
traced.
"""
from __future__ import annotations

import ast
import textwrap
from functools import cached_property

import libcst as cst

from ..cst_tree import SCOPES, branches
from ..findings import Related, Span
from .annotations import annotation_of, is_python_value, static_fields
from . import compilers
from .callsites import CallEvidence, CallSites, ParamEvidence, ParamRole, Role, param_role
from .installed import is_type_predicate
from .installed import static_fields as installed_static_fields
from .jit import JitAnalysis, JitContext
from .static_names import (CONCRETIZING_CALLS, CONCRETIZING_METHODS, CONTAINER_ANNOTATIONS, PHIML_STATIC_ANNOTATIONS, PYTHON_SCALAR_ANNOTATIONS, PYTREE_LISTS, SHAPE_ATTRIBUTES, SHAPE_CALLS,
                           SHAPE_METHODS, STATIC_ATTRIBUTES, STATIC_CALLS, STATIC_FUNCTION_NAMES, STATIC_METHODS, STORING, STRUCTURE_KEEPING,
                           TENSOR_ATTRIBUTES, is_dtype_parameter)
from .bindings import bound_module, root_node
from .names import NameResolver, dotted, last_name
from .scopes import GlobalScope
from .structure import enclosing_function
from .trace_values import (ARRAY_LIBRARIES, FALSE_WHILE_TRACING, MAX_ANALYSES, MAX_HELPER_DEPTH, PRIMITIVE_NAMES, PRIMITIVES,
                           SHAPE, STATIC, FunctionFlow, Step, Trace, Value, contained, element_of, jax_operation,
                           join, join_env, leaves_of, merge, static_module, staged, transform_static_default, truth, value_key)
from .transforms import positional_params

Function = cst.FunctionDef | cst.Lambda


def _parameter(param: cst.Param, text: str) -> Step:
    """The source of a derivation: the parameter `param`, and why it is traced (or may be)."""
    return Step(f"`{param.name.value}`", text, param.name)


class _Lines:
    """Where a node is, as a derivation's step prints it: `line 12`, or a notebook cell's label."""

    __slots__ = ("resolver",)

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def label(self, node: cst.CSTNode) -> str:
        return self.resolver.line_label(self.resolver.positions[node].start.line)


class _Flow:
    """Evaluates one function body; `env` maps local names to values."""

    def __init__(self, resolver: NameResolver, flow: FunctionFlow, calls: list, returns_of=None,
                 python_results: frozenset[str] = frozenset(), data: set | frozenset = frozenset()) -> None:
        self.resolver = resolver
        self.flow = flow
        self.data = data  # traced parameters the calls pass arrays to, as (id of the jitted function, name)
        # Names of the module bound to a function of another module that returns a Python value for any
        # arguments (facts.FileFacts.python_results: `_arraylike = isinstance(...) or np.isscalar(...)`), and
        # the dotted spellings of such functions called through an imported module (`helpers.is_scalar`)
        self.python_results = python_results
        # (callee Name, Call, argument values) -> what a module helper returns: its value, and the values of
        # the tuple every `return` gives, element by element (None: not such a tuple); None: not known
        self.returns_of = returns_of
        self.returned: list[Value] = []
        self.returned_parts: list[list[Value] | None] = []  # each `return`'s tuple elements (None: not a tuple)
        self.call_parts: dict[int, list[Value] | None] = {}  # id of a helper's call -> its elements, as last evaluated
        self.calls = calls  # (callee Name, Call, [argument values]) of module functions, for helpers
        self.lines = _Lines(resolver)

    # -- statements ----------------------------------------------------------------------
    def block(self, statements, env: dict[str, Value]) -> dict[str, Value]:
        for stmt in statements:
            env = self.statement(stmt, env)
        return env

    def _body(self, node) -> list:
        if node is None:
            return []
        body = node.body
        return list(body.body) if isinstance(body, cst.IndentedBlock) else [body]  # a one-line suite

    def statement(self, stmt: cst.CSTNode, env: dict[str, Value]) -> dict[str, Value]:
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):  # `if c: y = x` too
            for small in stmt.body:
                env = self.small(small, env)
            return env
        if isinstance(stmt, cst.If):
            self.record(stmt.test, truth(self.expr(stmt.test, env)), env)
            taken = self.block(self._body(stmt), {**env, **dict.fromkeys(_narrowed(stmt.test), STATIC)})
            other = self.statement(stmt.orelse, dict(env)) if isinstance(stmt.orelse, cst.If) else \
                self.block(self._body(stmt.orelse), dict(env))
            return join_env(taken, other)
        if isinstance(stmt, cst.For):
            iterated = self.expr(stmt.iter, env)
            self.record(stmt.iter, self.trip_count(stmt.iter, env, iterated), env)
            loop_env = dict(env)
            for _ in range(4):
                inner = dict(loop_env)
                self.bind_element(stmt.target, stmt.iter, iterated, inner, stmt)
                after = self.block(self._body(stmt), inner)
                joined = join_env(loop_env, after)
                if joined == loop_env:
                    break
                loop_env = joined
            return self.block(self._body(stmt.orelse), loop_env)
        if isinstance(stmt, cst.While):
            loop_env = dict(env)
            for _ in range(4):
                self.record(stmt.test, truth(self.expr(stmt.test, loop_env)), loop_env)
                after = self.block(self._body(stmt), dict(loop_env))
                joined = join_env(loop_env, after)
                if joined == loop_env:
                    break
                loop_env = joined
            self.record(stmt.test, truth(self.expr(stmt.test, loop_env)), loop_env)
            return self.block(self._body(stmt.orelse), loop_env)
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                value = self.expr(item.item, env)
                if item.asname is not None:
                    self.bind(item.asname.name, value, env, stmt)
            return self.block(self._body(stmt), env)
        if isinstance(stmt, cst.Try):
            env = self.block(self._body(stmt), env)
            for handler in stmt.handlers:
                env = join_env(env, self.block(self._body(handler), dict(env)))
            env = self.block(self._body(stmt.orelse), env)
            return self.block(self._body(stmt.finalbody), env)
        if isinstance(stmt, cst.FunctionDef):
            env = dict(env)
            env[stmt.name.value] = STATIC  # a function object; its body is not part of this flow
            return env
        if isinstance(stmt, cst.ClassDef):
            env = dict(env)
            env[stmt.name.value] = STATIC
            return env
        return env

    def small(self, small: cst.CSTNode, env: dict[str, Value]) -> dict[str, Value]:
        if isinstance(small, cst.Assign):
            value = self.expr(small.value, env)
            for target in small.targets:
                self.bind(target.target, value, env, small, small.value)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self.bind(small.target, self.expr(small.value, env), env, small, small.value)
        elif isinstance(small, cst.AugAssign):
            held, added = self.expr(small.target, env), self.expr(small.value, env)
            value = merge(held, added) if held.container else join(held, added)  # (`xs += [v]`: a list still)
            self.bind(small.target, value, env, small)
        elif isinstance(small, cst.Expr):
            self.expr(small.value, env)
        elif isinstance(small, cst.Return) and small.value is not None:
            returned = small.value
            if isinstance(returned, cst.Tuple) and returned.elements \
                    and not any(isinstance(e, cst.StarredElement) for e in returned.elements):
                parts = [self.expr(e.value, env) for e in returned.elements]  # (a tuple's value joins them)
                self.returned.append(contained(join(*parts)))
                self.returned_parts.append(parts)
            else:
                self.returned.append(self.expr(returned, env))
                self.returned_parts.append(None)
        elif isinstance(small, (cst.Global, cst.Nonlocal)):
            for item in small.names:
                declared = f"`{item.name.value}` is declared {type(small).__name__.lower()}"
                env[item.name.value] = Value(Trace.UNKNOWN, (Step(declared, f"{declared} here", item.name, self.lines),))
        return env

    def bind(self, target: cst.CSTNode, value: Value, env: dict[str, Value], stmt: cst.CSTNode,
             source: cst.CSTNode | None = None) -> None:
        if isinstance(target, cst.Name):
            if value.concretized:
                value = STATIC  # `n = int(x)`: wherever the program gets past the conversion, `n` is a Python value
            step = Step(f"`{target.value}`", f"`{target.value}` is assigned here", target, self.lines)
            env[target.value] = value.via(step, same_object=True) \
                if not value.static else value
            previous = self.flow.bound.get(target.value)
            self.flow.bound[target.value] = env[target.value] if previous is None else merge(previous, env[target.value])
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = source.elements if isinstance(source, (cst.Tuple, cst.List)) and len(source.elements) == len(target.elements) else None
            flattened = isinstance(source, cst.Call) and last_name(source.func) in ("tree_flatten", "flatten") \
                and len(target.elements) == 2  # leaves, treedef: the tree definition is static
            returned = self._returned_parts(source, target)
            for i, el in enumerate(target.elements):
                part = self.expr(elements[i].value, env) if elements is not None and not isinstance(elements[i], cst.StarredElement) \
                    else returned[i] if returned is not None else element_of(value)
                if isinstance(el, cst.StarredElement) or flattened and i == 0 and last_name(source.func) == "tree_flatten":
                    part = contained(part)  # `*rest` is a list; so are a tree's leaves
                self.bind(el.value, STATIC if flattened and i == 1 else part, env, stmt)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, contained(value), env, stmt)  # `*rest`: a list
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            name = target.value.value  # arr[i] = v: the container now holds v
            held = env.get(name, STATIC)
            env[name] = contained(join(held, value)) if held.container else join(held, value)  # (`d[k] = v`: a dict still)

    def _returned_parts(self, source: cst.CSTNode | None, target: cst.Tuple | cst.List) -> list[Value] | None:
        """`a, b = helper(...)`: the values of the tuple literal every `return` of the module helper gives,
        element by element (`return jnp.asarray(k), True` makes `b` a Python value), when they match the
        targets; None otherwise (each target then gets the value of the whole)."""
        if not isinstance(source, cst.Call) or not isinstance(source.func, cst.Name) \
                or any(isinstance(e, cst.StarredElement) for e in target.elements):
            return None
        parts = self.call_parts.get(id(source))
        if parts is None or len(parts) != len(target.elements):
            return None
        return [p.via(f"returned by `{source.func.value}()`", same_container=True) for p in parts]

    def record(self, node: cst.CSTNode, value: Value, env: dict[str, Value]) -> None:
        previous = self.flow.tests.get(id(node))
        self.flow.tests[id(node)] = value if previous is None else join(previous, value)
        seen = self.flow.envs.get(id(node))
        self.flow.envs[id(node)] = dict(env) if seen is None else join_env(seen, env)

    def line(self, node: cst.CSTNode) -> int:
        return self.resolver.positions[node].start.line

    # -- loops ---------------------------------------------------------------------------
    def _range_args(self, iterable: cst.CSTNode) -> list[cst.Arg] | None:
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range" \
                and "builtins.range" in self._qualified(iterable.func):
            return list(iterable.args)
        return None

    def trip_count(self, iterable: cst.CSTNode, env, iterated: Value) -> Value:
        """How many times the loop runs: traced for `range(traced)`; static for iterating over anything
        with a static length (a traced array's leading dimension is static)."""
        args = self._range_args(iterable)
        if args is not None:
            return join(*(self.expr(a.value, env) for a in args))
        if iterated.container:
            return STATIC  # a list or tuple built here: as many as it holds
        if iterated.traced:
            return STATIC  # iterating over a traced array or list: its length is part of its shape
        if isinstance(iterable, cst.Call) and self._qualified(iterable.func) & PYTREE_LISTS:
            return STATIC  # a pytree's leaves: how many is its structure, static under every jit
        return iterated

    def bind_element(self, target: cst.CSTNode, iterable: cst.CSTNode, iterated: Value, env, stmt) -> None:
        """Bind a loop target: element-wise for `zip(a, b)` and `enumerate(a)` (the index is static)."""
        parts = None
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and not any(a.keyword or a.star for a in iterable.args):
            builtin = self._qualified(iterable.func)
            if "builtins.zip" in builtin or iterable.func.value in ("zip", "safe_zip"):
                parts = [self.expr(a.value, env) for a in iterable.args]
            elif "builtins.enumerate" in builtin and len(iterable.args) == 1:
                parts = [STATIC, self.expr(iterable.args[0].value, env)]
        if parts is not None and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == len(parts) \
                and not any(isinstance(e, cst.StarredElement) for e in target.elements):
            for element, part in zip(target.elements, parts):
                self.bind(element.value, element_of(part), env, stmt)
            return
        self.bind(target, element_of(iterated), env, stmt)

    # -- expressions ----------------------------------------------------------------------
    def expr(self, node: cst.CSTNode, env: dict[str, Value]) -> Value:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is not None:
            return method(node, env)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)):
            return STATIC
        if isinstance(node, (cst.Lambda,)):
            return STATIC
        return join(*self._parts(node, env))

    def _parts(self, node: cst.CSTNode, env) -> list[Value]:
        """Values of the expressions inside `node`, looking through elements, arguments and f-string parts."""
        out = []
        for child in branches(node):  # (no token is an expression, an element, an argument or a part)
            if isinstance(child, cst.BaseExpression):
                out.append(self.expr(child, env))
            elif isinstance(child, (cst.BaseElement, cst.BaseDictElement, cst.Arg, cst.BaseFormattedStringContent)):
                out.extend(self._parts(child, env))
        return out

    def _Name(self, node: cst.Name, env) -> Value:
        if node.value in env:
            return env[node.value]
        return STATIC  # a module global, import or builtin: a constant at trace time

    def _Attribute(self, node: cst.Attribute, env) -> Value:
        base = self.expr(node.value, env)
        attr = node.attr.value
        if attr == "available" and base.traced and self.flow.framework == "phiml":
            return FALSE_WHILE_TRACING  # PhiML: the values of a tracer are not available
        if attr == "shape" or base.shape and attr in SHAPE_ATTRIBUTES:
            return SHAPE  # (jax's `.shape` is a tuple of ints: a Python value as well)
        if attr in STATIC_ATTRIBUTES or base.static:
            return STATIC
        if attr in base.fields:
            return STATIC  # a Python-valued field of a declared value class, under filter_jit
        if base.trace is Trace.TRACED and attr not in TENSOR_ATTRIBUTES:
            return Value(Trace.UNKNOWN, (*base.why, f"`.{attr}` (may be a static field)"), base.sources)
        return base.via(f"`.{attr}`")

    def _Subscript(self, node: cst.Subscript, env) -> Value:
        parts = [self.expr(node.value, env)]
        for element in node.slice:
            s = element.slice
            if isinstance(s, cst.Index):
                parts.append(self.expr(s.value, env))
            else:
                parts += [self.expr(x, env) for x in (s.lower, s.upper, s.step) if x is not None]
        return join(*parts)

    def _Call(self, node: cst.Call, env) -> Value:
        func = node.func
        self.call_parts.pop(id(node), None)  # (what an earlier evaluation of this call returned)
        args = [self.expr(a.value, env) for a in node.args]
        if last_name(func) in PRIMITIVE_NAMES:
            primitive = self._qualified(func) & PRIMITIVES
            for arg in node.args if primitive else ():
                if isinstance(arg.value, (cst.Name, cst.Lambda)):
                    self.flow.bodies.append((arg.value, sorted(primitive)[0]))
        if isinstance(func, cst.Attribute):
            receiver = self.expr(func.value, env)
            if receiver.shape and func.attr.value in SHAPE_METHODS:
                return SHAPE  # `shape.without(...)`, `shape.after_gather(indices)`: a Shape whatever its arguments
            if func.attr.value in STATIC_METHODS:
                return STATIC
            if func.attr.value in CONCRETIZING_METHODS and not node.args:
                return self._concretized(receiver, f"`.{func.attr.value}()`")
            if receiver.static and self.python_results and dotted(func) in self.python_results \
                    and self._module_bound(root_node(func)):
                return STATIC  # `helpers.is_scalar(x)`: another module's function that returns a Python value
            if isinstance(func.value, cst.Name) and func.value.value in env and any(a.traced for a in args):
                held = env[func.value.value]
                env[func.value.value] = join(held, *args)  # xs.append(tracer)
                if held.container and func.attr.value in STORING:
                    env[func.value.value] = contained(env[func.value.value])  # still the list it was
            qualified = self._qualified(func) if receiver.static else set()
            if qualified & SHAPE_CALLS:
                return SHAPE  # `math.batch(x)`
            if qualified & STATIC_CALLS or func.attr.value in STATIC_FUNCTION_NAMES or static_module(qualified) \
                    or any(map(is_type_predicate, qualified)):
                return STATIC  # an installed function that asks about types (predicates.py)
            kept = _structure_kept(node, qualified, args)
            if kept is not None:
                return kept
            if qualified and qualified <= PYTREE_LISTS:
                return leaves_of(func.attr.value, args)
            if receiver.static and func.attr.value.startswith(("is_", "has_")) and not all(a.static for a in args) \
                    and not any(q.startswith(ARRAY_LIBRARIES) for q in qualified):
                return Value(Trace.UNKNOWN, (f"`{func.attr.value}()` is a predicate defined elsewhere (often about types)",))
            if receiver.static and all(a.static for a in args):
                return self._staged(func, qualified)
            result = join(receiver, *args).via(f"`.{func.attr.value}()`")
            return staged(result) if jax_operation(qualified) else result
        if isinstance(func, cst.Name):
            if func.value in env:
                self.calls.append((func, node, args))  # a local def: analysed as a helper with these arguments
                found = self.returns_of(func, node, args, env) if self.returns_of is not None else None
                if found is not None:  # a def nested here, called here: what it returns, reading these locals
                    return self._returned(func, node, found)
                return join(env[func.value], *args)
            if func.value in self.python_results and self._module_bound(func):
                return STATIC  # another module's function that returns a Python value whatever it is given
            qualified = self._qualified(func)
            if qualified and qualified <= CONCRETIZING_CALLS:
                return self._concretized(join(*args), f"`{func.value}()`")
            if qualified & SHAPE_CALLS:
                return SHAPE  # `batch(x)`
            if qualified & STATIC_CALLS or func.value in STATIC_FUNCTION_NAMES or static_module(qualified) \
                    or any(map(is_type_predicate, qualified)):
                return STATIC  # an installed function that asks about types (predicates.py)
            kept = _structure_kept(node, qualified, args)
            if kept is not None:
                return kept
            if qualified and qualified <= PYTREE_LISTS:
                return leaves_of(func.value, args)
            found = self.returns_of(func, node, args) if self.returns_of is not None else None
            if found is not None:  # a helper of this module: what it returns for these arguments
                self.calls.append((func, node, args))
                return self._returned(func, node, found)
            if func.value.startswith(("is_", "has_")) and not any(q.startswith(ARRAY_LIBRARIES) for q in qualified) \
                    and not all(a.static for a in args):
                return Value(Trace.UNKNOWN, (f"`{func.value}()` is a predicate defined elsewhere (often about types)",))
            if all(a.static for a in args):
                self.calls.append((func, node, args))
                return self._staged(func, qualified)
            self.calls.append((func, node, args))
            result = join(*args).via(f"`{func.value}()`")
            return staged(result) if jax_operation(qualified) else result
        return join(self.expr(func, env), *args)

    def _concretized(self, value: Value, step: str) -> Value:
        """What a conversion to a Python value (`int(x)`, `x.item()`) gives: a Python value while tracing,
        for had `x` been a tracer it would have raised (jax, tensorflow) or been read once (torch.jit.trace).
        A jax operation's result is no proof: a function jitted on some paths runs eagerly on others (jax-md's
        `neighbor_fn` allocates with `int(occupancy)` outside jit). Only a parameter some call passes an array
        to is certainly a tracer there, and only in the test that converts it (`range(int(n))`, `if float(x) > 0`):
        that test fails at the conversion, so it stays traced, marked `concretized`; a name bound to a
        conversion is a Python value wherever the program gets that far (`bind`)."""
        if compilers.of(self.flow.context.transform).concretization == "bakes":
            return value.via(f"{step} (reads the example's value)")  # torch.jit.trace: what follows is baked in
        if not value.traced or value.sources.isdisjoint(self.data):
            return STATIC
        return Value(Trace.TRACED, (*value.why, f"{step} (raises on a tracer)")[-6:], value.sources, staged=value.staged,
                     concretized=True)

    def _module_bound(self, name: cst.Name | None) -> bool:
        """`name` reads the one module-level binding of its name (the import the project's facts are
        about): not a local, a parameter, a comprehension's variable, an import inside the function, or
        a name the module binds twice (`try: import fast as checks` / `except: import checks`)."""
        if name is None:
            return False
        found = self.resolver.assignments(name)
        if not found or not all(isinstance(a.scope, GlobalScope) for a in found):
            return False
        if any(enclosing_function(self.resolver, getattr(a, "node", None) or name) is not None for a in found):
            return False  # (`global pkg` and an import in a function: the project's facts do not see it)
        return len(found) == 1 or {bound_module(a) for a in found} == {name.value}  # `import pkg.a`, `import pkg.b`

    def _returned(self, func: cst.Name, node: cst.Call, found: tuple[Value, list[Value] | None]) -> Value:
        """The value of a call whose result `returns_of` read (`found`); its tuple elements are kept for
        the targets it is unpacked into (`_returned_parts`)."""
        returned, self.call_parts[id(node)] = found
        return returned.via(f"returned by `{func.value}()`", same_container=True)

    def _staged(self, func: cst.CSTNode, qualified: set[str]) -> Value:
        """Under `jax.jit` every jax operation is staged out: `jnp.zeros(3)` is a tracer, not a constant."""
        if self.flow.framework == "jax" and jax_operation(qualified):
            name = sorted(qualified)[0]
            return Value(Trace.TRACED, (f"`{name}(...)` inside `{self.flow.context.name}`: jax operations are staged "
                                        "out under jit (a tracer even for constant arguments)",), staged=True)
        return STATIC

    def _qualified(self, func: cst.CSTNode) -> set[str]:
        try:
            return self.resolver.qualified_names(func)
        except Exception:  # a node outside the resolved module (should not happen): no claim
            return set()

    def _Comparison(self, node: cst.Comparison, env) -> Value:
        if all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
            return STATIC  # identity: `x is None` is decided at trace time
        strings = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
        if isinstance(node.left, strings) or any(isinstance(c.comparator, strings) for c in node.comparisons):
            return STATIC  # compared with a string: a tensor never is, so this is a Python value (PhiML keeps str static)
        return join(self.expr(node.left, env), *(self.expr(c.comparator, env) for c in node.comparisons))

    def _BooleanOperation(self, node: cst.BooleanOperation, env) -> Value:
        left = self.expr(node.left, env)
        conjunction = isinstance(node.operator, cst.And)
        if left.const is not None and left.const is not conjunction:
            return left  # `False and ...` / `True or ...`: the right side never runs while tracing
        if conjunction:  # `isinstance(i, int) and i < 0`: the right side sees a Python i
            env = {**env, **dict.fromkeys(_narrowed(node.left), STATIC)}
        right = self.expr(node.right, env)
        if left.const is not None and right.static:
            return right  # `True and <static>` is that static value
        return merge(left, right)  # one of the two objects: `leaves and extra` of two lists is a list

    def _UnaryOperation(self, node: cst.UnaryOperation, env) -> Value:
        value = self.expr(node.expression, env)
        if isinstance(node.operator, cst.Not) and value.const is not None:
            return Value(Trace.STATIC, const=not value.const)
        if isinstance(node.operator, cst.Not):
            value = truth(value)  # `not xs`: a container's length decides
        return join(value) if value.const is None else STATIC

    def _IfExp(self, node: cst.IfExp, env) -> Value:
        test = truth(self.expr(node.test, env))
        self.record(node.test, test, env)
        narrowed = {**env, **dict.fromkeys(_narrowed(node.test), STATIC)}
        return join(test, self.expr(node.body, narrowed), self.expr(node.orelse, env))

    def _NamedExpr(self, node: cst.NamedExpr, env) -> Value:
        value = self.expr(node.value, env)
        self.bind(node.target, value, env, node)
        return value

    def _comprehension(self, node, env, parts) -> Value:
        inner = dict(env)
        for_in = node.for_in
        while for_in is not None:
            iterated = self.expr(for_in.iter, inner)
            self.bind_element(for_in.target, for_in.iter, iterated, inner, node)
            for cond in for_in.ifs:
                self.expr(cond.test, inner)
            for_in = for_in.inner_for_in
        return join(*(self.expr(p, inner) for p in parts))

    def _ListComp(self, node, env) -> Value:
        return contained(self._comprehension(node, env, [node.elt]))

    _SetComp = _ListComp

    def _GeneratorExp(self, node, env) -> Value:  # (iterating it runs the loops: their counts decide)
        return self._comprehension(node, env, [node.elt])

    def _DictComp(self, node, env) -> Value:
        return contained(self._comprehension(node, env, [node.key, node.value]))

    def _List(self, node, env) -> Value:
        return contained(join(*self._parts(node, env)))

    _Tuple = _Set = _Dict = _List


def _narrowed(test: cst.BaseExpression) -> list[str]:
    """Names `test` proves to be Python values when true: `isinstance(i, (int, np.integer))` (also
    inside `and`). A check against an array/tensor/tracer type proves nothing."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _narrowed(test.left) + _narrowed(test.right)
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance" \
            and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name):
        types = test.args[1].value
        elements = [e.value for e in types.elements] if isinstance(types, (cst.Tuple, cst.List)) else [types]
        for element in elements:
            text = element.attr.value if isinstance(element, cst.Attribute) else element.value if isinstance(element, cst.Name) else "?"
            if text == "?" or any(word in text.lower() for word in ("array", "tensor", "tracer", "jax")):
                return []
        return [test.args[0].value.value]
    return []


def _structure_kept(node: cst.Call, qualified: set[str], args: list[Value]) -> Value | None:
    positions = {STRUCTURE_KEEPING[q] for q in qualified if q in STRUCTURE_KEEPING}
    if len(positions) != 1:
        return None
    position = positions.pop()
    if len(node.args) <= position or node.args[position].keyword is not None or node.args[position].star:
        return None
    tree = args[position]
    if not tree.fields:
        return None
    joined = join(*args)
    return Value(joined.trace, (*tree.why, f"`{last_name(node.func)}()`"), joined.sources, fields=tree.fields,
                 staged=joined.staged) if joined.trace is not Trace.STATIC else STATIC


def _annotation(param: cst.Param) -> str | None:
    if param.annotation is None:
        return None
    ann = param.annotation.annotation
    if isinstance(ann, cst.Name):
        return ann.value
    if isinstance(ann, cst.Attribute):
        return ann.attr.value
    if isinstance(ann, (cst.SimpleString,)):
        return ann.evaluated_value
    return "?"


def all_params(fn: Function) -> list[cst.Param]:
    p = fn.params
    out = [*p.posonly_params, *p.params, *p.kwonly_params]
    if isinstance(p.star_arg, cst.Param):
        out.append(p.star_arg)
    if p.star_kwarg is not None:
        out.append(p.star_kwarg)
    return out


class TracedAnalysis:
    """Flows of every traced function in a module, computed once."""

    def __init__(self, resolver: NameResolver, jit: JitAnalysis, facts: dict | None = None, project=None,
                 open_module: str = "", python=None) -> None:
        self.resolver = resolver
        self.jit = jit
        self.facts = facts or {}  # qualified function name -> ((parameter, ParamRole), ...), from outside
        self.project = project  # FileFacts from the project index, or None
        # Why the module's public functions may be called by code not in the run ("" when every caller is seen)
        self.open_module = open_module
        # The module as CPython reads it (ast_module.AstModule), made when first asked: call sites are read there
        self._python = python
        self.python_results = frozenset(project.python_results) if project else frozenset()
        self.flows: dict[int, FunctionFlow] = {}
        self._returns: dict[tuple, tuple[Value, list[Value] | None]] = {}  # (its value, each tuple element joined)
        self._returning: list[int] = []
        self._cut = False  # the read under way met a helper it could not read (depth, recursion)
        self._returns_cut: dict[tuple, tuple[Value, list[Value] | None]] = {}  # such reads, by key and depth
        self._roles: dict[int, dict[str, ParamRole]] = {}
        self._config: dict[tuple[int, str], ParamRole] = {}  # (id of jitted function, parameter) -> its role
        self._data: set[tuple[int, str]] = set()  # traced parameters some call passes an array to
        self._generators: dict[int, bool] = {}  # id of a def -> whether it yields or awaits (`_yields`)
        self._run()

    def _walker(self, flow: FunctionFlow, calls: list, returns_of=None) -> "_Flow":
        return _Flow(self.resolver, flow, calls, returns_of, self.python_results, self._data)

    def returns_of(self, flow: FunctionFlow, name: cst.Name, call: cst.Call, args: list[Value],
                   env: dict[str, Value] | None = None) -> tuple[Value, list[Value] | None] | None:
        """What a def of this module returns when called with these argument values, and the values of the
        tuple each of its `return`s gives, element by element, when they all give one of one length (None:
        not known: not a single plain def, a generator, recursion; "cannot tell" for a helper nested deeper
        than MAX_HELPER_DEPTH helpers).
        `env`: the caller's names where it calls a def of its own (`name` is local there): a def nested
        directly in the function that calls it reads that function's locals as they are at the call."""
        functions = self.jit.functions_denoted(name)
        if len(functions) != 1 or not isinstance(functions[0], cst.FunctionDef):
            return None
        fn = functions[0]
        closure: dict[str, Value] = {}
        if env is not None:
            if self.resolver.parent(fn) is self.resolver.wrapper.module \
                    or enclosing_function(self.resolver, fn) is not enclosing_function(self.resolver, call):
                return None  # (a local name bound to a module def, or a def nested elsewhere)
            closure = env
        elif self.resolver.parent(fn) is not self.resolver.wrapper.module:
            return None  # a nested def also reads its enclosing function's locals: read where it is called
        return self._returned_by(flow, fn, _bind_call(fn, call, args), closure)

    def _returned_by(self, flow: FunctionFlow, fn: cst.FunctionDef, params: dict[str, Value],
                     closure: dict[str, Value]) -> tuple[Value, list[Value] | None] | None:
        """`returns_of` of the def `fn`, its parameters bound to `params`, reading `closure` for other names."""
        key = (id(fn), flow.framework, value_key(params), value_key({k: v for k, v in closure.items() if k not in params}))
        if key in self._returns:
            return self._returns[key]
        stacked = (key, len(self._returning))  # a reading that met a cut gives the same at the same depth
        if stacked in self._returns_cut:
            return self._returns_cut[stacked]
        if id(fn) in self._returning:
            self._cut = True  # recursion: the call reads as a call of an unknown function (`_Call`)
            return None
        if len(self._returning) >= MAX_HELPER_DEPTH:
            self._cut = True
            why = f"`{fn.name.value}()` is called more than {MAX_HELPER_DEPTH} helpers deep: not followed"
            return Value(Trace.UNKNOWN, (why,)), None
        if self._generator(fn):
            return None
        self._returning.append(id(fn))
        outer_cut, self._cut = self._cut, False
        try:
            shadow = FunctionFlow(flow.context, flow.framework, params)
            walker = self._walker(shadow, [], lambda *a: self.returns_of(shadow, *a))
            walker.block(walker._body(fn), {**closure, **params})
            value = merge(*walker.returned) if walker.returned else STATIC
            parts = walker.returned_parts
            sizes = {len(p) if p is not None else None for p in parts}
            elements = [merge(*(p[i] for p in parts)) for i in range(len(parts[0]))] if parts and len(sizes) == 1 and None not in sizes else None
        finally:
            self._returning.pop()
            cut, self._cut = self._cut, outer_cut or self._cut
        if cut:  # (it read a helper cut off by depth or recursion: read shallower, it may differ;
            # a recursion's cut may differ by path too, as it always could: the cut call reads as unknown's)
            self._returns_cut[stacked] = value, elements
        else:
            self._returns[key] = value, elements
        return value, elements

    def _generator(self, fn: cst.FunctionDef) -> bool:
        """`_yields(fn)`, once per def: a helper is asked about at each of its calls."""
        found = self._generators.get(id(fn))
        if found is None:
            found = self._generators[id(fn)] = _yields(fn)
        return found

    def value_at(self, anchor: cst.CSTNode, expr: cst.CSTNode) -> Value:
        """The value of `expr` evaluated where the recorded test/iterable `anchor` is evaluated."""
        flow = self.flow_containing(anchor)
        if flow is None or id(anchor) not in flow.envs:
            return Value(Trace.UNKNOWN, ("not inside an analysed traced function",))
        shadow = FunctionFlow(flow.context, flow.framework, flow.params)
        return self._walker(shadow, []).expr(expr, dict(flow.envs[id(anchor)]))

    def value_anywhere(self, expr: cst.CSTNode) -> Value | None:
        """The value of `expr` in the traced function whose body contains it, each local name taken
        as the join of all its bindings (traced if any is); None outside an analysed function."""
        flow = self.flow_containing(expr)
        if flow is None:
            return None
        shadow = FunctionFlow(flow.context, flow.framework, flow.params)
        return self._walker(shadow, []).expr(expr, {**flow.params, **flow.bound})

    def flow_containing(self, node: cst.CSTNode) -> FunctionFlow | None:
        """The flow of the traced function whose own body (not a nested def's) contains `node`."""
        current = self.resolver.parent(node)
        while current is not None:
            if isinstance(current, (cst.FunctionDef, cst.Lambda)):
                return self.flows.get(id(current))
            current = self.resolver.parent(current)
        return None

    # -- parameters ----------------------------------------------------------------------
    def roles(self, context: JitContext) -> dict[str, ParamRole]:
        """What each parameter of a directly jitted function is: static, configuration, data (callsites.py)."""
        key = id(context.function)
        given = self.facts.get(self.qualified_name(context.function)) if self.facts else None
        if key not in self._roles and given is not None:
            self._roles[key] = dict(given)
        if key not in self._roles:
            self._roles[key] = self._read_roles(context)
        return self._roles[key]

    @cached_property
    def callsites(self) -> CallSites | None:
        """The calls of the module's jitted functions, read on CPython's `ast` (None: it cannot read the file)."""
        python = self._python() if self._python is not None else None
        if python is None or python.tree is None:
            return None
        return CallSites(python, self.project, self.open_module)

    def evidence(self, context: JitContext) -> CallEvidence | None:
        """What the calls of `context`'s jitted callable pass (callsites.CallEvidence), found by the
        places of its function and application; None where it cannot be read."""
        located = self._located(context)
        if located is None or self.callsites is None:
            return None
        function, how, application = located
        return self.callsites.of(function, how, application)  # type: ignore[arg-type]

    def _located(self, context: JitContext) -> tuple[ast.AST, str, ast.Call | None] | None:
        """(function, how, application) on `ast` for `context`'s, by place."""
        if self.callsites is None:
            return None
        python = self.callsites.module
        fn = python.at(self._span(context.function), (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda), start_only=True)
        application = python.at(self._span(context.application), (ast.Call,)) if context.application is not None else None
        if fn is None or (application is None) != (context.application is None):
            return None
        return fn, context.how, application

    def _read_roles(self, context: JitContext) -> dict[str, ParamRole]:
        fn = context.function
        located = self._located(context)
        if located is not None:
            assert self.callsites is not None
            function, how, application = located
            return self.callsites.roles(function, how, application, context.static_params)  # type: ignore[arg-type]
        # CPython cannot read the file (a newer Python's syntax): the declaration alone, no call is read
        params = [p for p in all_params(fn) if p is not fn.params.star_kwarg and p is not fn.params.star_arg]
        unread = CallEvidence([], {p.name.value: ParamEvidence(p.name.value) for p in params}, complete=True)
        unread.escape("its calls are not read: this Python cannot parse the file")
        return {p.name.value: param_role(p.name.value, self._expression(p.annotation.annotation if p.annotation else None),
                                         self._expression(p.default),
                                         context.static_params, unread) for p in params}

    def _span(self, node: cst.CSTNode) -> Span:
        r = self.resolver.positions[node]
        return Span(r.start.line, r.start.column, r.end.line, r.end.column)

    def _expression(self, node: cst.BaseExpression | None) -> ast.expr | None:
        """`node` as CPython reads it on its own (None: absent, or not readable either)."""
        return annotation_of(self.resolver.wrapper.module.code_for_node(node)) if node is not None else None

    def qualified_name(self, fn: Function) -> str | None:
        """`f` or `Class.f` for a def at module level or in a module-level class (None otherwise)."""
        if not isinstance(fn, cst.FunctionDef):
            return None
        parent = self.resolver.parent(fn)
        while parent is not None and not isinstance(parent, (cst.Module, cst.ClassDef, cst.FunctionDef)):
            parent = self.resolver.parent(parent)
        if isinstance(parent, cst.Module):
            return fn.name.value
        if isinstance(parent, cst.ClassDef) and isinstance(self.resolver.parent(self.resolver.parent(parent)), cst.Module):
            return f"{parent.name.value}.{fn.name.value}"
        return None

    def facts_found(self) -> tuple:
        """The roles found for the directly jitted functions, as `Settings.callsite_facts` takes them."""
        out = []
        for context in self.jit.contexts:
            name = self.qualified_name(context.function)
            if context.how != "called" and name is not None and context.static_params is not None:
                out.append((name, tuple(sorted(self.roles(context).items()))))
        return tuple(out)

    def is_config(self, source: tuple[int, str]) -> bool:
        """The traced parameter `source` is configuration (its condition is PML204's to fix)."""
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
        is_method = isinstance(fn, cst.FunctionDef) and params and params[0].name.value in ("self", "cls") \
            and params[0] in (*fn.params.posonly_params, *fn.params.params)
        for i, param in enumerate(params):
            name = param.name.value
            ann = _annotation(param)
            if static is None:
                out[name] = Value(Trace.UNKNOWN, (_parameter(param, f"`{name}`: the static arguments of `{api}` cannot be read statically"),))
            elif name in static:
                out[name] = STATIC
            elif param is fn.params.star_kwarg and static - {p.name.value for p in params}:
                out[name] = Value(Trace.UNKNOWN, (Step(f"`**{name}`", f"`**{name}` may carry the static arguments {sorted(static)}",
                                                          param.name),))
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
            elif not semantics.traces_scalars and (ann in PYTHON_SCALAR_ANNOTATIONS or is_python_value(self._annotation_ast(param))):
                # tf.function, filter_jit, torch.compile key traces on Python values instead of tracing them
                # (`tuple[int, int]`, `bool | None` too); torch.jit.script compiles them as typed values
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
        return out

    def _annotation_ast(self, param: cst.Param):
        if param.annotation is None:
            return None
        return annotation_of(self.resolver.wrapper.module.code_for_node(param.annotation.annotation))

    def _static_fields(self, param: cst.Param) -> frozenset[str]:
        """The Python-valued fields of the value class `param` is declared as (in this module, or an
        installed one such as `diffrax.SaveAt`)."""
        ann = param.annotation.annotation if param.annotation is not None else None
        if not isinstance(ann, (cst.Name, cst.Attribute)):
            return frozenset()
        fields: set[str] = set()
        for qualified in self.resolver.qualified_names(ann):
            fields |= installed_static_fields(qualified)
        module = self.resolver.wrapper.module
        if isinstance(ann, cst.Name):
            for stmt in module.body:
                if isinstance(stmt, cst.ClassDef) and stmt.name.value == ann.value:
                    tree = ast.parse(textwrap.dedent(module.code_for_node(stmt)))
                    fields |= set(static_fields(tree.body[0]))
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
            if remote and isinstance(context.function, cst.FunctionDef):
                values = {p.name.value: STATIC for p in all_params(context.function)}
                for trace in remote:
                    for fact in trace.params:
                        if fact.name in values:
                            param = next(p for p in all_params(context.function) if p.name.value == fact.name)
                            values[fact.name] = declared(param, join(values[fact.name], _remote_value(fact, param)))
                helper_args[id(context.function)] = values
                pending[id(context.function)] = (context, values)
                order.append(context)
        rounds = 0
        while order and rounds < MAX_ANALYSES:
            rounds += 1
            context = order.pop(0)
            key = id(context.function)
            params = pending[key][1]
            flow = self._analyse(context, params)
            for callee_name, call, arg_values in flow.calls:
                for fn in self.jit.functions_denoted(callee_name):
                    helper = helpers.get(id(fn))
                    if helper is None or not isinstance(fn, cst.FunctionDef):
                        continue
                    values = _bind_call(fn, call, arg_values)
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
                    pending[id(fn)] = (body, {p.name.value: Value(Trace.TRACED, (_parameter(
                        p, f"`{p.name.value}`: parameter of a function run by `{primitive}`"),), frozenset()) for p in all_params(fn)})
                    order.append(body)

    def _closure(self, fn: Function) -> dict[str, Value]:
        """For a def nested in an analysed function: the values of the enclosing function's locals it
        can read (joined over all their bindings, since a closure reads them when it is called)."""
        current = self.resolver.parent(fn)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            current = self.resolver.parent(current)
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
        if isinstance(fn, cst.Lambda):
            walker.expr(fn.body, env)
        else:
            walker.block(walker._body(fn), env)
        self.flows[id(fn)] = flow
        return flow


def _remote_value(fact, param: cst.Param) -> Value:
    """A parameter's value as the project index found it at the traced calls in other modules: a step
    at the parameter, and the place in the other module where the tracer starts."""
    if fact.trace == "static":
        return STATIC
    elsewhere = Related.line_of(fact.path, fact.line, fact.origin) if fact.path else None
    step = Step(f"`{fact.name}`", fact.why, param.name, elsewhere=elsewhere)
    return Value(Trace.TRACED if fact.trace == "traced" else Trace.UNKNOWN, (step,))


def _yields(fn: cst.FunctionDef) -> bool:
    """A `yield` or `await` in the def's own body (not in a def, lambda or class nested in it)."""
    stack = [fn.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Yield or kind is cst.Await:
            return True
        stack.extend(c for c in branches(node) if type(c) not in SCOPES)
    return False


def _bind_call(fn: cst.FunctionDef, call: cst.Call, values: list[Value]) -> dict[str, Value]:
    """Parameter values of `fn` at one call site (unmatched parameters keep their defaults: static)."""
    positional = positional_params(fn)
    out: dict[str, Value] = {p.name.value: STATIC for p in all_params(fn)}
    i = 0
    for arg, value in zip(call.args, values):
        if arg.star:
            for name in out:
                out[name] = join(out[name], value)
            continue
        if arg.keyword is not None:
            if arg.keyword.value in out:
                out[arg.keyword.value] = join(out[arg.keyword.value], value)
            continue
        if i < len(positional):
            out[positional[i]] = value
        i += 1
    params = {p.name.value: p for p in all_params(fn)}
    return {k: declared(params[k], v.via(_parameter(params[k], f"`{k}`: parameter of helper `{fn.name.value}`"), same_container=True)
                        if not v.static else v)
            for k, v in out.items()}


def declared(param: cst.Param, value: Value) -> Value:
    """A parameter's value as its annotation declares its kind: one declared `Shape` is a Shape (SHAPE:
    a Python object while tracing); one declared a list, tuple, set or dict (`Sequence[Tensor]`,
    `Optional[list]`, `dict | None`) is a container: its length and truth are Python values, whatever it
    holds (static_names.CONTAINER_ANNOTATIONS)."""
    if param.annotation is None:
        return value
    kind = declared_kind(param.annotation.annotation)
    if kind == "shape":
        return SHAPE
    if kind == "container":
        return contained(value)
    return value


def declared_kind(ann: cst.BaseExpression, depth: int = 0) -> str | None:
    """"shape", "container", "none" (the annotation `None`) or None (anything else) for an annotation:
    its last name, a subscript's (`List[int]`), and an `Optional[...]`/`Union[...]`/`a | b` of one kind
    and `None`."""
    if depth > 4:
        return None
    if isinstance(ann, cst.Name) and ann.value == "None":
        return "none"
    if isinstance(ann, (cst.Name, cst.Attribute)):
        last = last_name(ann)
        return "shape" if last == "Shape" else "container" if last in CONTAINER_ANNOTATIONS else None
    if isinstance(ann, cst.Subscript):
        last = last_name(ann.value)
        if last in ("Optional", "Union"):
            kinds = {declared_kind(e.slice.value, depth + 1) if isinstance(e.slice, cst.Index) else None for e in ann.slice}
        else:
            return "container" if last in CONTAINER_ANNOTATIONS else None
    elif isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.BitOr):
        kinds = {declared_kind(ann.left, depth + 1), declared_kind(ann.right, depth + 1)}
    else:
        return None
    kinds.discard("none")
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None
