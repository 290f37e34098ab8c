"""PML204 static-count-argument."""
from __future__ import annotations

import ast
from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.analysis import ast_traced, compilers
from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_flow import all_params, last_name
from rewriter.analysis.ast_jit import literal, match_transform
from rewriter.analysis.ast_names import arguments, own_nodes_in_order
from rewriter.analysis.callsites import ParamRole, Role
from rewriter.analysis.jit_contexts import JitContext
from rewriter.analysis.static_names import CONFIGURATION_ANNOTATIONS, JAX_SHAPE_NAMES, JAX_SHAPES, size_arguments
from rewriter.analysis.trace_values import FunctionFlow
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import Replace
from rewriter.emit.spelling import Spelling, dotted_expr
from rewriter.findings import Safety, Severity, Span
from rewriter.rule import Example, Unchanged, dedented

from ._auxiliary import auxiliary_editable, keyword_arg, with_auxiliary, with_static_argnames
from ._lift import comma

_SHAPE_CONSTRUCTORS = frozenset({"phiml.math.spatial", "phiml.math.channel", "phiml.math.batch", "phiml.math.instance",
                                 "phiml.math.dual"})
_DIMENSION_TYPES = frozenset(q.rsplit(".", 1)[1] for q in _SHAPE_CONSTRUCTORS)
# jax functions whose shape (or size) arguments must be Python values under `jax.jit`.
_FIXABLE = ("phiml.math.jit_compile", "phiml.math.jit_compile_linear", "jax.jit")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class StaticCountArgument(AstRule):
    """A parameter that is configuration — a count, a flag, a mode, a size — but is traced by the jit
    transform cannot steer Python control flow. PhiML's `jit_compile` and `jax.jit` both trace Python
    `int`/`float`/`bool` arguments that callers pass (only parameters left at their defaults stay
    constants): `range(n)`, `if flag:` and `spatial(x=n)` / `jnp.zeros(n)` then fail on jax and
    silently keep the first call's value on torch (measured: `n=3` after `n=2` still loops twice).

    The fix is to declare the parameter static — `auxiliary_args` for PhiML, `static_argnames` for
    `jax.jit` — which keeps it a Python value: one trace per distinct value, and the loop, branch or
    shape is exact. The `if` itself stays: rewriting a flag's `if` into `where`/`cond` (PML201) would
    merge branches that may differ in shape or type. A parameter is configuration when it is
    annotated `bool`/`int`/`float`/`str`, when every call of the jitted function in the file passes
    a Python value, when every call leaves it at its default, or when it defaults to such a literal
    and no call passes an array; a parameter some call passes an array to is data (PML201-PML203).
    The finding shows that evidence at the parameter, and where the value must be a Python value (a
    related location). A parameter every call leaves at its default is a constant today: it is a
    warning, for the first caller that passes it gets it traced. So is one every call passes `None`
    (or leaves at a `None` default): jit flattens `None` to no leaves, and the function sees `None`.
    """

    CODE = "PML204"
    NAME = "static-count-argument"
    SUMMARY = "a parameter used as a count, flag or size is traced by jit: declare it static (auxiliary_args / static_argnames)"
    SAFETY = Safety.SAFE
    REMOVES_ERRORS = True
    SAFETY_VARIES = True
    SEVERITY = Severity.ERROR
    FIX_SAFETY = (
        "Safe when the parameter is annotated `bool`/`int`/`float`/`str`, when every call in the file passes a "
        "Python value, or when every call leaves it at its default: those calls compute what the eager code "
        "computes, with one trace per distinct value (a count that changes every call re-traces every call — "
        "PML401 territory). Unsafe when only a literal default says it is a Python value, or when the function "
        "has callers no call in the project shows: it is passed to another function, returned, stored, handed "
        "to a registering decorator, or public in a package others install. A caller there passing an array "
        "would have it hashed as a static key (PhiML) or rejected as unhashable (jax); the note names the escape."
    )
    EXAMPLES = (
        Example(
            dedented("""
                from phiml import math


                @math.jit_compile
                def smooth(x, steps: int):
                    for _ in range(steps):
                        x = 0.5 * (x + math.shift(x, (-1,))[0])
                    return x
            """),
            dedented("""
                from phiml import math


                @math.jit_compile(auxiliary_args='steps')
                def smooth(x, steps: int):
                    for _ in range(steps):
                        x = 0.5 * (x + math.shift(x, (-1,))[0])
                    return x
            """),
        ),
        Example(
            dedented("""
                from functools import partial

                import jax


                @jax.jit
                def features(v, flat: bool = False):
                    if flat:
                        return v.reshape(-1)
                    return v[:, None]
            """),
            dedented("""
                from functools import partial

                import jax


                @partial(jax.jit, static_argnames=('flat',))
                def features(v, flat: bool = False):
                    if flat:
                        return v.reshape(-1)
                    return v[:, None]
            """),
            "a flag under `jax.jit`: declared static; its `if` stays (its branches differ in shape)",
        ),
        Unchanged(dedented("""
            @partial(jax.jit, static_argnames=("flat",))
            def features(v, flat: bool = False):
                if flat:
                    return v.reshape(-1)
                return v[:, None]
        """), "a flag already declared static"),
        Unchanged(dedented("""
            @jax.jit
            def clip(x, limit):
                if jnp.max(x) > limit:
                    return x / jnp.max(x) * limit
                return x


            clip(jnp.ones(3), jnp.array(2.0))
        """), "a parameter a call passes an array to: data"),
    )
    PROJECT_FACTS = frozenset({"traces"})
    READS_FACTS = True
    TRIGGERS = (("jit",),)

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A traced function (or a helper it calls) calls a PhiML dimension function (`spatial(...)`); or
        a condition, a trip count or a jax shape call's size argument there may derive from a jit root's
        parameter that may be configuration (`_configurable_on_ast`)."""
        if not syntax.spells(Kind.JIT):
            return False
        facts = syntax.facts
        if facts is None:
            return False
        traced = facts.traced_functions
        if any(not facts.callees_by.get(key, frozenset()).isdisjoint(_DIMENSION_TYPES) for key in traced):
            return True
        shapes = any(not facts.callees_by.get(key, frozenset()).isdisjoint(JAX_SHAPE_NAMES) for key in traced)
        if not (shapes or facts.traced_condition):
            return False

        def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
            """A root's configuration parameters, none where every transform of its own keeps Python
            scalars Python values (`torch.jit.script`, `tf.function`: Scalars) and no other module traces it."""
            own = facts.transforms.get(id(node))
            if own is not None and (isinstance(node, ast.Lambda) or node.name not in facts.remote_traced) \
                    and not any(facts.may_be_compiled(t, _traces_scalars) for t in own[1]):
                return frozenset()
            return _configurable_on_ast(facts, node)

        with facts.flows_from(parameters) as flows:
            return any(f.traced_test() for f in flows) or shapes and any(f.traced_shape_argument() for f in flows)

    def check(self) -> None:
        file = self.file
        if not file.jit.contexts:
            return
        traced = file.traced
        uses: dict[int, dict[str, tuple[ast.AST, str]]] = {}
        for flow in list(traced.flows.values()):
            root = flow.context.root
            if root.how == "called" or not any(traced.is_config((id(root.function), n)) for n in traced.roles(root)):
                continue
            for name, use in self._uses(flow, root).items():
                uses.setdefault(id(root.function), {}).setdefault(name, use)
        for context in file.jit.contexts:
            found = uses.get(id(context.function))
            if found and context.how != "called" and not self._jitted_twice(context):
                self._check(context, found)

    def _jitted_twice(self, context: JitContext) -> bool:
        """Stacked jit decorators: which one keeps what static is PML303's to settle first."""
        fn = context.function
        if not isinstance(fn, _DEFS):
            return False
        names = self.file.names
        return sum(match_transform(names, d, (Kind.JIT,)) is not None for d in fn.decorator_list) > 1

    def _uses(self, flow: FunctionFlow, root: JitContext) -> dict[str, tuple[ast.AST, str]]:
        """Configuration parameters of `root` -> (first node of `flow` that needs them static, how)."""
        traced = self.file.traced
        owner = id(root.function)  # (how a value's sources name it)
        names = self.file.names
        out: dict[str, tuple[ast.AST, str]] = {}

        def config_sources(value) -> list[str]:
            if value is None or not value.traced or not value.sources or not all(traced.is_config(s) for s in value.sources):
                return []
            if value.staged:
                return []  # a jax operation's result: a tracer even of static arguments, so declaring them static fixes nothing
            return sorted(name for fid, name in value.sources if fid == owner)

        for node in own_nodes_in_order(flow.context.function):
            test, how = None, ""
            if isinstance(node, (ast.If, ast.While, ast.IfExp)):
                test, how = node.test, "a condition"
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                test, how = node.iter, "a trip count"
            if test is not None:
                for name in config_sources(flow.value_of(test)):
                    out.setdefault(name, (test, how))
            if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Name, ast.Attribute)):
                continue
            if flow.framework == "phiml" and last_name(node.func) in _DIMENSION_TYPES \
                    and names.qualified_names(node.func) & _SHAPE_CONSTRUCTORS:
                how = "a dimension size"
            elif flow.framework == "jax" and last_name(node.func) in JAX_SHAPE_NAMES \
                    and names.qualified_names(node.func) & JAX_SHAPES:
                how = "a shape"
            else:
                continue
            args = arguments(node)
            keywords = [a.keyword for a in args]
            sizes = size_arguments(last_name(node.func) or "", [(bool(a.star), k) for a, k in zip(args, keywords)]) \
                if how == "a shape" else [k not in ("dtype", "device") for k in keywords]
            for arg, size in zip(args, sizes):
                if not size:
                    continue  # no size: a dtype, a device, a shape call's data (`jnp.full(shape, fill_value)`'s value)
                value = traced.value_anywhere(arg.value)
                for name in config_sources(value):
                    out.setdefault(name, (node, how))
        return out

    def _check(self, context: JitContext, uses: dict[str, tuple[ast.AST, str]]) -> None:
        file = self.file
        fn = context.function
        roles = file.traced.roles(context)
        params = {p.arg: p for p in all_params(fn)}
        ordered = [n for n in params if n in uses]
        if not ordered:
            return
        first = params[ordered[0]]
        place = self._name_of(first)
        keyword = "auxiliary_args" if context.framework == "phiml" else "static_argnames"
        listed = ", ".join(f"`{n}`" for n in ordered)
        hows = " and ".join(dict.fromkeys(uses[n][1] for n in ordered))
        defaulted = all(roles[n].role is Role.DEFAULTED for n in ordered if n in roles)
        api = context.transform.api.name
        shown = "jit_compile" if api.startswith("phiml.") else api
        consequence = {"phiml": "fails on jax, keeps the first value on torch", "jax": "it raises"}.get(context.framework, "it fails")
        is_ = "is" if len(ordered) == 1 else "are"
        if defaulted:
            nones = all(roles[n].values == (None,) for n in ordered if n in roles)  # passed only `None`
            them = 'it' if len(ordered) == 1 else 'them'
            passes = f"passes {them} a value other than `None`" if nones else f"passes {them}"
            message = f"{listed}, used as {hows}, {is_} traced by `{shown}` once a caller {passes}"
            severity = Severity.WARNING
        else:
            message = f"{listed} {is_} traced by `{shown}` but used as {hows}: {consequence}"
            severity = None
        related: list = []  # why each is configuration (at the parameter), and where it needs a Python value
        for n in ordered:
            related.append((self._name_of(params[n]), f"`{n}`: {roles[n].why if n in roles and roles[n].why else 'a Python value'}"))
            related.append((uses[n][0], f"`{n}` is used as {uses[n][1]} here"))
        if api not in _FIXABLE:
            self.report(first, message, hint=f"declare {listed} static for `{api}`", related=related, severity=severity,
                        note="not rewritten: only `math.jit_compile`, `math.jit_compile_linear` and `jax.jit` are edited",
                        place=place)
            return
        plan = self._plan(context, tuple(ordered))
        if plan is None:
            self.report(first, message, hint=f"add {listed} to `{keyword}`", related=related, severity=severity,
                        note="not rewritten: the transform's arguments cannot be edited faithfully here", place=place)
            return
        at, needs, build, imports = plan
        unproven = [n for n in ordered if not _proven(roles.get(n))]
        if not unproven:
            fix = PlannedFix(f"name {listed} in `{keyword}`", at, build, imports=imports, reads=at, invalidates=fn, needs=needs)
            self.report(first, message, fix=fix, related=related, note="one trace per value", severity=severity, place=place)
            return
        opened = next((roles[n].open for n in unproven if roles.get(n) is not None and roles[n].open), "")
        why = f"unsafe: {opened}, so the calls seen may not be all" if opened else \
            "unsafe: only a literal default says it is a Python value"
        fix = PlannedFix(f"name {listed} in `{keyword}` (unsafe: {'its callers are not all seen' if opened else 'the type is inferred from a default'})",
                         at, build, Safety.UNSAFE, imports=imports, reads=at, invalidates=fn, needs=needs)
        self.report(first, message, fix=fix, related=related, note=f"one trace per value; {why}", severity=severity, place=place)

    def _name_of(self, param: ast.arg) -> Span:
        """Where libcst's name of the parameter is (`ast` places the parameter with its annotation)."""
        span = self.file.span(param)
        return Span(span.line, span.column, span.line, span.column + len(param.arg))

    def _plan(self, context: JitContext, names: tuple[str, ...]):
        """(the nodes the fix edits, the nodes inside them it reads, how to write it, the imports it needs) for
        declaring `names` static where the transform is applied; None where the arguments cannot be edited
        faithfully."""
        fn = context.function
        transform = context.transform
        expr, application = transform.expr, context.application
        decorated = context.how == "decorator" and isinstance(fn, _DEFS)
        wrapped = context.how == "wrapped" and application is not None
        if context.framework == "phiml":
            if decorated and auxiliary_editable(self.file.reading, expr):
                return (fn,), (expr,), partial(_write_auxiliary, names=names), ()
            if wrapped and _keyword_editable(application, transform, "auxiliary_args"):
                return (application,), (), partial(_write_keyword, keyword="auxiliary_args", value=",".join(names)), ()
            return None
        if decorated and _static_argnames_editable(expr):
            if isinstance(expr, (ast.Name, ast.Attribute)):
                spelling = Spelling(self.file.names, self.file.identifiers)
                spelled = spelling.text("functools", "partial")
                return (fn,), (expr,), partial(_write_static_argnames, names=names, partial_spelled=spelled), tuple(spelling.imports)
            return (fn,), (expr,), partial(_write_static_argnames, names=names, partial_spelled=""), ()
        if wrapped and _keyword_editable(application, transform, "static_argnames"):
            return (application,), (), partial(_write_keyword, keyword="static_argnames", value=names), ()
        return None


def _proven(role: ParamRole | None) -> bool:
    """The role rests on an annotation, or on calls that are all the calls (every use of the function is a
    visible call) passing Python values or leaving it at its default."""
    return role is not None and role.proven and (role.role is Role.DEFAULTED or not role.why.startswith("defaults to"))


def _keyword_editable(call: ast.Call, transform, keyword: str) -> bool:
    """`jax.jit(f)` can get `static_argnames=('n',)` (`_write_keyword`): the transform is the callee, and
    the keyword is not there yet."""
    return transform.expr is call.func and transform.keyword(keyword) is None and bool(call.args or call.keywords)


def _static_argnames_editable(expr: ast.expr) -> bool:
    """`with_static_argnames` can add names to the jax decorator `expr`: a bare transform, or a call with
    arguments, none unpacked, whose `static_argnames`, if any, is a literal."""
    if isinstance(expr, (ast.Name, ast.Attribute)):
        return True
    if not isinstance(expr, ast.Call) or not (expr.args or expr.keywords) or any(isinstance(a, ast.Starred) for a in expr.args) \
            or any(k.arg is None for k in expr.keywords):
        return False
    existing = next((k.value for k in expr.keywords if k.arg == "static_argnames"), None)
    if existing is None:
        return True
    try:
        literal(existing)
    except ValueError:
        return False
    return True


def _write_auxiliary(context, fn: cst.FunctionDef, expr: cst.BaseExpression, *, names: tuple[str, ...]):
    decorators = with_auxiliary(fn, expr, names)
    return [Replace(fn, fn.with_changes(decorators=decorators))] if decorators is not None else None


def _write_static_argnames(context, fn: cst.FunctionDef, expr: cst.BaseExpression, *, names: tuple[str, ...],
                           partial_spelled: str):
    decorators = with_static_argnames(fn, expr, names, lambda: dotted_expr(partial_spelled))
    return [Replace(fn, fn.with_changes(decorators=decorators))] if decorators is not None else None


def _write_keyword(context, call: cst.Call, *, keyword: str, value):
    """`jax.jit(f)` -> `jax.jit(f, static_argnames=('n',))`."""
    return [Replace(call, call.with_changes(args=[*call.args[:-1], call.args[-1].with_changes(comma=comma()),
                                                   keyword_arg(keyword, value)]))]


def _configurable_on_ast(facts, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
    """The parameters of a jit root that callsites.param_role may call configuration (or defaulted):
    those with a default or a `bool`/`int`/`float`/`str`/`Literal` annotation, and those a call of it
    here (`ast_traced.may_be_python`) or in another module (a complete one, passing a Python value)
    may pass a Python value; every named one of a lambda, of a call with `*`/`**` arguments, or
    where the roles are given from elsewhere."""
    args = node.args
    named = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every = frozenset(a.arg for a in named)
    if facts.roles_given or isinstance(node, ast.Lambda):
        return every
    positional = [*args.posonlyargs, *args.args]
    defaulted = positional[len(positional) - len(args.defaults):] + [
        a for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    out = {a.arg for a in defaulted} | {a.arg for a in named if ast_traced.annotation_name(a.annotation) in CONFIGURATION_ANNOTATIONS}
    out |= facts.remote_python(node.name)
    for call, nest in facts.calls_of.get(node.name, ()):  # callsites.CallSites._bind: what each call passes
        if any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
            return every
        caller = facts.function(nest) if nest is not None else None
        caller = caller if caller is not None and id(call) in caller.call_ids else None
        out.update(p.arg for p, a in zip(positional, call.args) if ast_traced.may_be_python(a, caller))
        out.update(k.arg for k in call.keywords if ast_traced.may_be_python(k.value, caller))
    return frozenset(out) & every


def _traces_scalars(compiler: compilers.Compiler) -> bool:
    return compiler.traces_scalars
