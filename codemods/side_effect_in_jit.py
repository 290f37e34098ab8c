"""PML501 side-effect-in-jit."""
from __future__ import annotations

import ast

from rewriter.analysis.ast_jit import assigned_value
from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_names import walk_outside_lambdas
from rewriter.analysis.callsites import annotation_name
from rewriter.analysis.jit_contexts import JitContext
from rewriter.analysis.scope_model import BuiltinAssignment
from rewriter.analysis.static_names import STORING
from rewriter.ast_rule import AstRule
from rewriter.findings import Safety
from rewriter.rule import Example, Unchanged, dedented

from ._ast_hazards import contexts, own_nodes, trace_related

RETURN_IT = "return the value as an extra output instead"


class SideEffectInJit(AstRule):
    """A jit-compiled function is run once per trace with symbolic values, and afterwards its trace
    is replayed without running the Python body. A value stored outside the function during the
    trace — appended to a global list, written into a container of an enclosing function, stored on
    `self` (in the jitted method, or in a method it calls through `self`), bound with `global` /
    `nonlocal` — is therefore a tracer (jax: `UnexpectedTracerError` when used), a symbolic tensor
    out of its graph (tensorflow: `TypeError` when used), or on torch the first call's value,
    silently never updated (measured: the side effect ran 2x for 3 calls, logging stale values).
    This holds under PhiML's `jit_compile` on each backend, `jax.jit` (also of a bound method,
    `jax.jit(self.step)`), `tf.function` and `torch.jit.trace`. `print` of a traced value likewise
    prints once per trace, and prints a tracer, not the values of any call.

    A write into a container the caller passed (`state["u"] += dt`, `log.append(x)`) diverges the
    other way: `jax.jit` and PhiML's `jit_compile` (jax, torch and tensorflow) trace the function
    with a rebuilt copy of every container argument, so the caller's dict or list is never updated,
    while an eager run updates it (measured on calls 1, 2 and 3). A write meant as an output is
    silently lost. `tf.function` refuses the write while tracing (`ValueError`: it "should not modify
    its Python input arguments"). Such a write is reported when the parameter is a Python container:
    the write shows it (a string key, `append`/`extend`/`insert`/`update`/`setdefault`), its
    annotation says so (`dict`, `List[...]`), or a call in the module passes one. `buf[i] = v` alone
    is not: on a jax array it raises both ways, on a torch tensor it is in place and traced alike.
    Nor is a method call that cannot be a container's: its result is used although every container
    method of that name returns None (`updates, state = optimizer.update(grads, state)`), `update`
    with two positional arguments, or a method of a name annotated with a class of its own.
    A function that returns the container it writes into already has the functional form; it is
    reported only where a call in the module drops that result and keeps the stale dict. Scratch is
    not reported: a work list the function also takes items out of (`xs.pop()`), or a container no
    visible caller can read after the call (`return f([])`, a local not read again); a function
    with no visible call may have callers that do, and is reported.

    A store of a value that is the same in every trace — a constant, or one computed from static
    data only (`self.index = np.arange(self.n)` on a static `self`, a flag) — is a cache, and not
    reported; appending one (`calls.append(x.shape)`) still counts traces instead of calls.

    `torch.compile` is not reported: dynamo replays side effects on Python objects after its graph
    (measured: module lists, the caller's dict and `self` are updated on every call, as eagerly).

    The portable fix is to return the value as an extra output (`return y + 1, y`), which works on
    every backend, and to store it outside the jitted function; for a state argument, build the new
    state and return it (`state = {**state, "u": u}`); for printing, `jax.debug.print` under
    `jax.jit`. PhiML's `math.when_available` is not a safe replacement in phiml 1.16 (it breaks on
    re-trace and on torch). Containers created inside the function (`out = []; out.append(x)`,
    `work = dict(state)`) are local and fine.
    """

    CODE = "PML501"
    NAME = "side-effect-in-jit"
    SUMMARY = "a jit-compiled function stores a value outside itself, writes into its caller's container, or prints a traced value: once per trace, or lost"
    SAFETY = Safety.DISPLAY
    FIX_SAFETY = "Reported only: moving a value out as an extra return value changes the function's signature and every caller."
    EXAMPLES = (
        Example(
            dedented("""
                LOG = []


                @math.jit_compile
                def step(x):
                    y = x * 2
                    LOG.append(y)
                    return y + 1
            """),
            None,
            note="return `y` as an extra output instead",
            by_hand=dedented("""
                LOG = []


                @math.jit_compile
                def step(x):
                    y = x * 2
                    return y + 1, y


                out, y = step(x)
                LOG.append(y)  # outside the traced function: the real value
            """),
        ),
        Unchanged(dedented("""
            @math.jit_compile
            def step(x):
                out = []
                out.append(x * 2)
                return out[0] + 1
        """), "a container created inside the function"),
        Example(
            dedented("""
                @jax.jit
                def advance(state, dt):
                    state["u"] += dt * state["v"]
                    return jnp.sum(state["u"])
            """),
            None,
            note="the caller's `state` is never updated under jit",
            by_hand=dedented("""
                @jax.jit
                def advance(state, dt):
                    state = {**state, "u": state["u"] + dt * state["v"]}
                    return jnp.sum(state["u"]), state


                energy, state = advance(state, dt)
            """),
        ),
        Example(
            dedented("""
                class Simulation:
                    def __init__(self):
                        self.step = jax.jit(self._step)

                    def _step(self, u):
                        self.residual = jnp.max(jnp.abs(u))
                        return u * 0.5
            """),
            None,
            note="`self.residual` keeps a tracer",
            by_hand=dedented("""
                class Simulation:
                    def __init__(self):
                        self.step = jax.jit(self._step)

                    def _step(self, u):
                        return u * 0.5, jnp.max(jnp.abs(u))

                    def advance(self, u):
                        u, self.residual = self.step(u)  # outside the trace: the real value
                        return u
            """),
        ),
        Unchanged(dedented("""
            @jax.jit
            def step(state, x):
                work = dict(state)
                work["u"] = work["u"] + x
                return work
        """), "a copy of the argument, made inside"),
        Unchanged(dedented("""
            @jax.jit
            def loss(x):
                print(x.shape)
                return jnp.sum(x ** 2)
        """), "a print of a static value, a shape"),
    )
    HAZARDS = ("Avoid side effects (Jax)",)
    READS_FACTS = True
    TRIGGERS = (("jit",), ("function",), ("compile",))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A function a jit traces (or one it calls, or one nested in them) writes outside itself,
        declares `global`/`nonlocal`, or prints what may be traced (ast_traced's `side_effect`)."""
        if not syntax.spells(Kind.JIT):
            return False
        facts = syntax.facts
        if facts is None:
            return False
        effects = facts.traced_functions & facts.effects
        return bool(effects) and any(f.side_effect() for f in facts.traced_nest(effects))

    def check(self) -> None:
        for context in contexts(self.file):
            if context.root.transform.api.name != "torch.compile":  # dynamo replays side effects: no divergence
                self._check(context)

    def _check(self, context: JitContext) -> None:
        file = self.file
        names = file.names
        for node in own_nodes(context.function):
            kind = type(node)
            if kind is ast.Call and type(node.func) is ast.Attribute and node.func.attr in STORING:
                root = _root(node.func.value)
                if type(root) is ast.Name and not self._no_container_method(node, root):
                    shown = f"`{file.code(node.func.value)}.{node.func.attr}(...)`"
                    self._store(node, root, shown, node.func.attr, node.func.value, context, _argument_values(node),
                                node.func.attr not in IDEMPOTENT)
            elif kind is ast.Assign or kind is ast.AugAssign or kind is ast.AnnAssign:
                targets = node.targets if kind is ast.Assign else [node.target]
                for target in targets:
                    root = _root(target)
                    if type(target) in (ast.Attribute, ast.Subscript) and type(root) is ast.Name:
                        operator = f"{_OPERATORS[type(node.op)]}=" if kind is ast.AugAssign else "="
                        values = [node.value] if node.value is not None else []
                        self._store(target, root, f"`{file.code(target)} {operator} ...`", None, target, context,
                                    values, kind is ast.AugAssign)
            elif kind is ast.Global or kind is ast.Nonlocal:
                keyword = "global" if kind is ast.Global else "nonlocal"
                self.report(node, f"`{keyword} {', '.join(node.names)}` rebinds a name outside the function {_per_trace(context)}",
                            hint="return the value instead", related=trace_related(file, context))
            elif kind is ast.Call and type(node.func) is ast.Name and node.func.id == "print" \
                    and _builtin(names.assignments(node.func)):
                self._check_print(node, context)

    def _store(self, node: ast.AST, root: ast.Name, shown: str, method: str | None, written: ast.expr,
               context: JitContext, values: list[ast.expr], accumulates: bool) -> None:
        """A write (`written` is the object written into: `self`, `state`, `self.log`) rooted at the name `root`,
        of `values` (the assigned value, or the method's arguments); `accumulates`: repeating it changes
        the container again (`append`, `+=`)."""
        evidence = _container_write(written, method)
        related = trace_related(self.file, context)
        trace = _per_trace(context)
        owner = self._outside(root, context, evidence)
        if owner and not accumulates and self._static(values):
            return  # the same value stored in every trace (a cache of static data, a flag): nothing escapes
        if owner == "self":
            attribute = _first_attribute(written)
            direct = type(written) is ast.Name or not method and type(written.value) is ast.Name  # `self.x = v`
            where = "`self`" if direct or not attribute else f"`self.{attribute}`"
            stored = f"`self.{attribute}`" if attribute else "it"
            preposition = "on" if where == "`self`" else "in"
            self.report(node, f"{shown} stores a value {preposition} {where}, which outlives the trace, {trace}",
                        hint=f"return the value as an extra output and set {stored} outside the jit-compiled "
                             f"`{context.root.name}`", related=related)
        elif owner:
            self.report(node, f"{shown} stores a value in `{owner}` {trace}", hint=RETURN_IT, related=related)
        else:
            self._into_argument(node, root, shown, method, written, context, evidence)

    def _into_argument(self, node, root: ast.Name, shown: str, method: str | None, written: ast.expr,
                       context: JitContext, evidence: str) -> None:
        """A write into the container a caller passed to the jit-compiled function itself: jax and PhiML
        pass a rebuilt copy (the caller's object never changes), `tf.function` refuses the write."""
        if context.how == "called" or context.framework not in ("jax", "phiml", "tensorflow"):
            return  # a helper's argument may be its caller's local; torch.jit takes no containers
        param = self._parameter(root, context)
        if param is None or context.static_params is not None and param.arg in context.static_params:
            return
        name = param.arg
        calls = self._calls(context, name)
        kind = evidence or CONTAINER_ANNOTATIONS.get(annotation_name(param.annotation) or "", "") \
            or next((k for _c, _e, k in calls if k), "")
        if not kind:
            return  # `buf[i] = v` on what may be an array (torch: in place, traced alike)
        if _consumed(context.function, name):
            return  # a work list (`xs.pop()` too): the caller hands it over, as library code does
        if calls and not any(self._observed(c, e) for c, e, _k in calls):
            return  # scratch: no visible caller reads its container after the call (`return f(xs)`)
        text = self.file.code
        related = trace_related(self.file, context) + [
            (c, f"the caller's `{text(e)}`, which the write does not reach under jit") for c, e, _k in calls][:2]
        hint = _functional(text, name, method, written, kind)
        lost = f"the caller's {kind} is never updated (eagerly it is)"
        if self._returned(context.function, name):
            discarded = [(c, e) for c, e, _k in calls if type(self.file.names.parent(c)) is ast.Expr]
            if not discarded:
                return  # the container is returned: a caller that keeps the result sees the same either way
            call, given = discarded[0]
            related = [(call, f"this call discards the returned `{name}`")]
            lost = f"only the returned copy has the write, the caller's {kind} is never updated (eagerly it is)"
            keep = f"{text(given)} = {text(call)}"
            hint = f"the function returns `{name}` already: keep the result (`{keep}`)"
        if context.framework == "tensorflow":
            self.report(node, f"{shown} writes into the argument `{name}`: `tf.function` raises `ValueError` (a traced "
                              f"function must not modify its Python arguments); eagerly the caller's {kind} is updated",
                        hint=hint, related=related)
            return
        jit = "`jax.jit`" if context.framework == "jax" else "`jit_compile`"
        self.report(node, f"{shown} writes into the argument `{name}`, which {jit} passes as a copy: {lost}",
                    hint=hint, related=related)

    def _static(self, values: list[ast.expr]) -> bool:
        """Every stored value is a Python constant, or a value the traced analysis proves static (from
        static data only: `np.arange(n)`, `self.indices`); unknown (a helper it did not analyse) is not."""
        traced = self.file.traced
        for value in values:
            if self._constant(value):
                continue
            found = traced.value_anywhere(value)
            if found is None and not self._may_trace(value, 0):
                continue  # a helper the analysis did not follow (`self.find_neighbors()`): read syntactically
            if found is None or not found.static:
                return False
        return bool(values)

    def _constant(self, value: ast.expr) -> bool:
        """A number, a string or bytes (implicitly concatenated too), True, False or None, as written."""
        if type(value) is ast.Constant:
            return value.value is None or type(value.value) in (bool, int, float, str, bytes)
        return type(value) is ast.JoinedStr and self.file.reading.string_pieces(value) > 1  # (`"a" f"{b}"`)

    def _may_trace(self, expr: ast.expr, depth: int) -> bool:
        """In a helper the traced analysis did not analyse: may `expr` be a tracer? It may when it reads a
        parameter other than `self`, calls an array library other than NumPy (a staged operation gives a
        tracer even of constants), or reads a local bound to such a value; `self.indices`, NumPy and
        Python calls on them are the same in every trace."""
        names = self.file.names
        if depth > 4:
            return True
        for node in walk_outside_lambdas(expr):
            if type(node) is ast.Call and type(node.func) in (ast.Name, ast.Attribute):
                qualified = names.qualified_names(node.func)
                if any(q.startswith(TRACING_LIBRARIES) for q in qualified):
                    return True
            elif type(node) is ast.Name and node.id != "self":
                for binding in names.reaching(node):
                    bound = getattr(binding, "node", None)
                    if type(bound) is ast.arg:
                        return True
                    if type(bound) is ast.Name and names.scope(bound) is names.scope(node):
                        value = assigned_value(names, bound)
                        if value is None or self._may_trace(value, depth + 1):
                            return True
        return False

    def _no_container_method(self, call: ast.Call, root: ast.Name) -> bool:
        """Whether the call provably is no write into a Python container: its result is used although
        every container's method of that name returns None (`updates, state = optimizer.update(g, s)`,
        a NamedTuple's `flags.update(...)` that returns a new one), `update` with two positional
        arguments (`dict.update` takes one), or a method of a name annotated with a class of its own."""
        method = call.func.attr  # type: ignore[attr-defined]
        names = self.file.names
        if method in RETURNS_NONE and type(names.parent(call)) is not ast.Expr:
            return True
        if method == "update" and sum(1 for a in call.args if type(a) is not ast.Starred) > 1:
            return True
        if call.func.value is not root:  # type: ignore[attr-defined]
            return False
        bindings = names.reaching(root)
        param = getattr(next(iter(bindings)), "node", None) if len(bindings) == 1 else None
        if type(param) is not ast.arg or param.annotation is None:
            return False
        annotated = annotation_name(param.annotation) or ""
        return bool(annotated) and annotated not in CONTAINER_ANNOTATIONS and annotated not in LOOSE_ANNOTATIONS

    def _parameter(self, root: ast.Name, context: JitContext) -> ast.arg | None:
        """The parameter of `context`'s function that `root` denotes (also through a local alias `d = state`)."""
        names = self.file.names
        bindings = names.reaching(root)  # flow-sensitive: `state = dict(state)` before the write is a copy
        arguments = context.function.args
        params = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        for _ in range(3):
            if len(bindings) != 1:
                return None
            node = getattr(next(iter(bindings)), "node", None)
            if type(node) is ast.arg:
                return node if any(node is p for p in params) else None
            alias = assigned_value(names, node)  # `d = state`: the same object
            if type(alias) is not ast.Name:
                return None
            bindings = names.reaching(alias)
        return None

    def _calls(self, context: JitContext, name: str) -> list[tuple[ast.Call, ast.expr, str]]:
        """The visible calls of the jit-compiled function and what each passes for parameter `name`, with
        "dict"/"list" when that is a container display or a name bound to one ("" otherwise)."""
        if type(context.function) is ast.Lambda:
            return []
        callsites = self.file.traced.callsites
        evidence = callsites.of(context.function, context.how, context.application) if callsites is not None else None
        param = evidence.params.get(name) if evidence is not None else None
        out = []
        names = self.file.names
        for passed in param.passed if param else ():
            call, given = passed.call, passed.expr
            if type(call) is not ast.Call or not isinstance(given, ast.expr):
                continue  # (a call in another module)
            value = assigned_value(names, _only_binding(names, given)) if type(given) is ast.Name else given
            out.append((call, given, _container_kind(value)))
        return out

    def _observed(self, call: ast.Call, given: ast.expr) -> bool:
        """May the caller read the container it passed as `given` after `call`? Not a new display
        (`f([])`), nor a local name read nowhere after the call (`return f(xs)`, no later read, no loop)."""
        names = self.file.names
        if type(given) in (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp):
            return False
        if type(given) is not ast.Name:
            return True  # `self.state`, `cfg["log"]`: an object others hold
        bindings = names.reaching(given)
        scope = names.scope(given)
        if not bindings or any(type(getattr(b, "node", None)) is ast.arg or getattr(b, "scope", scope) is not scope
                               for b in bindings):
            return True  # the caller's own parameter, or a name of an enclosing scope: its caller may read it
        statement, looped = None, False
        current = names.parent(call)
        while current is not None:
            if type(current) in (ast.For, ast.AsyncFor, ast.While):
                looped = True
            if type(current) in _FUNCTIONS:
                break
            if isinstance(current, ast.stmt) and statement is None:
                statement = current
            current = names.parent(current)
        if type(statement) is ast.Return and not looped:
            return False
        line = self.file.span(call).end_line
        reads = [a.node for b in bindings for a in b.references if a.node is not given]
        return looped and bool(reads) or any(self.file.span(r).line > line for r in reads)

    def _returned(self, function, name: str) -> bool:
        """`return state` or `return x, state`: the function hands the written container back."""
        for node in own_nodes(function):
            if type(node) is ast.Return and node.value is not None:
                values = node.value.elts if type(node.value) is ast.Tuple else [node.value]
                if any(type(v) is ast.Name and v.id == name for v in values):
                    return True
        return False

    def _outside(self, name: ast.Name, context: JitContext, evidence: str = "") -> str:
        """`name`'s own name if it denotes a container that outlives the traced call ("" otherwise).

        `self` (the object of a jitted method, or of a method a jitted method calls), and module or
        closure names bound to a container (`LOG = []`, `CACHE = dict()`) or, when the write itself
        shows a container (`log.append(v)`, `log["k"] = v`), a parameter of an enclosing function. A
        name bound to a module, a function or an object of unknown kind (a Pallas `Ref`) is left alone;
        the jitted function's own parameters are `_into_argument`'s.
        """
        names = self.file.names
        scope = names.scope(name)
        if scope is None:
            return ""
        local = scope.assignments[name.id] if name.id in scope.assignments else []
        if local:
            params = [a for a in local if type(a.node) is ast.arg]
            if len(params) == len(local) and name.id == "self" and params[0].node is _first_param(context.function):
                return "self"  # an object that outlives the call
            return ""  # a local, or a parameter
        bindings = names.assignments(name)
        if not bindings or _builtin(bindings):
            return ""
        nodes = [getattr(a, "node", None) for a in bindings]
        if all(_container(assigned_value(names, n)) for n in nodes):
            return name.id  # lives outside the function
        if evidence and all(type(n) is ast.arg for n in nodes if n is not None):
            return name.id  # a container the enclosing function was given: its caller's
        return ""

    def _check_print(self, call: ast.Call, context: JitContext) -> None:
        traced = self.file.traced
        values = [traced.value_anywhere(a) for a in _argument_values(call)]
        if not any(v is not None and v.traced for v in values):
            return  # static values (a shape, a string) print once per trace, which is what the author sees
        hint = "use `jax.debug.print`" if context.framework == "jax" else "return the value and print it outside"
        self.report(call, f"`print` of a traced value prints a tracer, once per trace of `{context.root.name}`",
                    hint=hint, related=trace_related(self.file, context))


# Storing methods that give the same container when repeated with the same value: a static value
# stored by them once per trace is what every call would store. `append` and the like count calls.
IDEMPOTENT = frozenset({"update", "setdefault", "add"})
# Libraries whose operations give a tracer under jit (NumPy's do not: they run on static data).
TRACING_LIBRARIES = ("jax.", "phiml.", "phi.", "tensorflow.", "torch.")


def _argument_values(call: ast.Call) -> list[ast.expr]:
    """The values a call is given, `*` and `**` ones included, in the order written."""
    return [a.value if type(a) is ast.Starred else a.value if type(a) is ast.keyword else a
            for a in sorted([*call.args, *call.keywords], key=lambda a: (a.lineno, a.col_offset))]


def _consumed(function, name: str) -> bool:
    """The function also takes items out of the parameter `name` (`pop`, `remove`, `clear`, `del xs[i]`)."""
    for node in own_nodes(function):
        if type(node) is ast.Call and type(node.func) is ast.Attribute and type(node.func.value) is ast.Name \
                and node.func.value.id == name and node.func.attr in ("pop", "popitem", "popleft", "remove", "clear"):
            return True
        if type(node) is ast.Delete and any(type(_root(t)) is ast.Name and _root(t).id == name  # type: ignore[attr-defined]
                                            for target in node.targets for t in _deleted(target)):
            return True
        if type(node) is ast.Call and any(type(a) is ast.Attribute and type(a.value) is ast.Name and a.value.id == name
                                          and a.attr == "pop" for a in _argument_values(node)):
            return True  # `map(operands.pop, indices)`
    return False


def _deleted(target: ast.expr) -> list[ast.expr]:
    return list(target.elts) if type(target) is ast.Tuple else [target]


def _per_trace(context: JitContext) -> str:
    return f"once per trace of `{context.root.name}`, not per call"


def _root(expr: ast.expr) -> ast.expr:
    """The object at the start of a chain of attributes and subscripts (`self` of `self.log["k"]`)."""
    while type(expr) in (ast.Attribute, ast.Subscript):
        expr = expr.value  # type: ignore[attr-defined]
    return expr


def _first_attribute(expr: ast.expr) -> str:
    """`info` of `self.info["k"]`: the attribute read directly on the chain's root."""
    attribute = ""
    while type(expr) in (ast.Attribute, ast.Subscript):
        if type(expr) is ast.Attribute:
            attribute = expr.attr  # type: ignore[attr-defined]
        expr = expr.value  # type: ignore[attr-defined]
    return attribute


# Storing methods that return None on every Python container (list, dict, set, deque, queue).
RETURNS_NONE = frozenset({"append", "extend", "insert", "add", "update", "appendleft", "put"})
# Annotations that say nothing about the class of the value.
LOOSE_ANNOTATIONS = frozenset({"Any", "object", "Mapping", "Sequence", "Iterable", "Collection", "MutableMapping",
                               "MutableSequence", "Optional", "Union", "PyTree", "Callable"})


# Methods only Python's containers have among the storing ones (`add` and `put` are also array methods).
CONTAINER_METHODS = {"append": "list", "extend": "list", "insert": "list", "appendleft": "deque",
                     "update": "dict", "setdefault": "dict"}


def _container_write(written: ast.expr, method: str | None) -> str:
    """The kind of container the write itself shows ("dict", "list"; "" when it may be an array): a
    container-only method, or an item written under a string key."""
    if method:
        return CONTAINER_METHODS.get(method, "")
    if type(written) is ast.Subscript:
        key = written.slice
        if type(key) is ast.JoinedStr or type(key) is ast.Constant and type(key.value) in (str, bytes):
            return "dict"
    return ""


CONTAINER_ANNOTATIONS = {"dict": "dict", "Dict": "dict", "MutableMapping": "dict", "defaultdict": "dict",
                         "OrderedDict": "dict", "list": "list", "List": "list", "MutableSequence": "list",
                         "deque": "deque", "set": "set", "Set": "set", "MutableSet": "set"}


def _container_kind(value) -> str:
    if type(value) in (ast.Dict, ast.DictComp):
        return "dict"
    if type(value) in (ast.List, ast.ListComp):
        return "list"
    if type(value) is ast.Call and type(value.func) in (ast.Name, ast.Attribute):
        last = value.func.attr if type(value.func) is ast.Attribute else value.func.id
        return {"dict": "dict", "defaultdict": "dict", "OrderedDict": "dict", "list": "list", "deque": "deque"}.get(last, "")
    return ""


def _only_binding(names, name: ast.Name):
    bindings = names.reaching(name)
    return getattr(next(iter(bindings)), "node", None) if len(bindings) == 1 else None


def _functional(text, name: str, method: str | None, written: ast.expr, kind: str) -> str:
    """The functional form of the write, for `help:`: build the new container and return it."""
    if type(written) is ast.Subscript and type(written.value) is ast.Name and kind == "dict" and not method:
        return f"return the new {kind} instead: `{name} = {{**{name}, {text(written.slice)}: ...}}`, and return `{name}`"
    if method in ("append", "extend") and type(written) is ast.Name:
        items = "value" if method == "append" else "*values"
        return f"return the new list instead: `{name} = [*{name}, {items}]`, and return `{name}`"
    if method == "update" and type(written) is ast.Name:
        return f"return the new dict instead: `{name} = {{**{name}, **new}}`, and return `{name}`"
    return f"build a new {kind or 'container'} from `{name}` and return it"


def _builtin(assignments) -> bool:
    """Bound by Python itself (or not at all): `print` is the builtin unless the module rebinds it."""
    return all(isinstance(a, BuiltinAssignment) for a in assignments)


CONTAINER_TYPES = frozenset({"list", "dict", "set", "deque", "defaultdict", "OrderedDict", "Counter"})


def _container(value) -> bool:
    if type(value) in (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp):
        return True
    return type(value) is ast.Call and type(value.func) in (ast.Name, ast.Attribute) \
        and (value.func.attr if type(value.func) is ast.Attribute else value.func.id) in CONTAINER_TYPES


def _first_param(function) -> ast.arg | None:
    params = [*function.args.posonlyargs, *function.args.args]
    return params[0] if params else None


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.MatMult: "@", ast.Div: "/", ast.Mod: "%", ast.Pow: "**",
              ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&", ast.FloorDiv: "//"}
