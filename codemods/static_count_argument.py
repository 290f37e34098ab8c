"""PML204 static-count-argument."""
from __future__ import annotations

import ast

import libcst as cst

from rewriter.analysis import ast_traced, compilers
from rewriter.analysis.apis import Kind
from rewriter.analysis.callsites import ParamRole, Role
from rewriter.analysis.jit import JitContext
from rewriter.analysis.names import last_name
from rewriter.analysis.static_names import CONFIGURATION_ANNOTATIONS, JAX_SHAPE_NAMES, JAX_SHAPES, size_arguments
from rewriter.analysis.trace_values import FunctionFlow
from rewriter.analysis.structure import all_params
from rewriter.analysis.transforms import match_transform
from rewriter.codemod import Codemod, Example, Replace, Unchanged, dedented
from rewriter.emit import Spelling
from rewriter.findings import Safety, Severity

from ._auxiliary import keyword_arg, with_auxiliary, with_static_argnames
from ._lift import COMMA
from ._control_flow import own_nodes

_SHAPE_CONSTRUCTORS = frozenset({"phiml.math.spatial", "phiml.math.channel", "phiml.math.batch", "phiml.math.instance",
                                 "phiml.math.dual"})
_DIMENSION_TYPES = frozenset(q.rsplit(".", 1)[1] for q in _SHAPE_CONSTRUCTORS)
# jax functions whose shape (or size) arguments must be Python values under `jax.jit`.
_FIXABLE = ("phiml.math.jit_compile", "phiml.math.jit_compile_linear", "jax.jit")


class StaticCountArgument(Codemod):
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
    warning, for the first caller that passes it gets it traced.
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
        facts = syntax.facts
        if facts is None:
            return False
        traced = facts.traced_functions
        if any(not facts.callees_by.get(key, frozenset()).isdisjoint(_DIMENSION_TYPES) for key in traced):
            return True
        shapes = any(not facts.callees_by.get(key, frozenset()).isdisjoint(JAX_SHAPE_NAMES) for key in traced)
        if not (shapes or facts.traced_condition):
            return False
        def parameters(node: ast.AST) -> frozenset[str]:
            """A root's configuration parameters, none where every transform of its own keeps Python
            scalars Python values (`torch.jit.script`, `tf.function`: Scalars) and no other module traces it."""
            own = facts.transforms.get(id(node))
            if own is not None and (isinstance(node, ast.Lambda) or node.name not in facts.remote_traced) \
                    and not any(facts.may_be_compiled(t, _traces_scalars) for t in own[1]):
                return frozenset()
            return _configurable_on_ast(facts, node)

        with facts.flows_from(parameters) as flows:
            return any(f.traced_test() for f in flows) or shapes and any(f.traced_shape_argument() for f in flows)

    def leave_Module(self, original_node: cst.Module) -> None:
        if not self.file.analysis.jit.contexts:
            return
        traced = self.file.analysis.traced
        uses: dict[int, dict[str, tuple[cst.CSTNode, str]]] = {}
        for flow in list(traced.flows.values()):
            root = flow.context.root
            if root.how == "called" or not any(traced.is_config((traced.key(root.function), n)) for n in traced.roles(root)):
                continue
            for name, use in self._uses(flow, root).items():
                uses.setdefault(id(root.function), {}).setdefault(name, use)
        for context in self.file.analysis.jit.contexts:
            found = uses.get(id(context.function))
            if found and context.how != "called" and not self._jitted_twice(context):
                self._check(context, found)

    def _jitted_twice(self, context: JitContext) -> bool:
        """Stacked jit decorators: which one keeps what static is PML303's to settle first."""
        fn = context.function
        if not isinstance(fn, cst.FunctionDef):
            return False
        names = self.file.analysis.names
        return sum(match_transform(names, d.decorator, (Kind.JIT,)) is not None for d in fn.decorators) > 1

    def _uses(self, flow: FunctionFlow, root: JitContext) -> dict[str, tuple[cst.CSTNode, str]]:
        """Configuration parameters of `root` -> (first node of `flow` that needs them static, how)."""
        traced = self.file.analysis.traced
        owner = traced.key(root.function)  # (how a value's sources name it)
        names = self.file.analysis.names
        out: dict[str, tuple[cst.CSTNode, str]] = {}

        def config_sources(value) -> list[str]:
            if value is None or not value.traced or not value.sources or not all(traced.is_config(s) for s in value.sources):
                return []
            if value.staged:
                return []  # a jax operation's result: a tracer even of static arguments, so declaring them static fixes nothing
            return sorted(name for fid, name in value.sources if fid == owner)

        for node in own_nodes(flow.context.function):
            test, how = None, ""
            if isinstance(node, (cst.If, cst.While, cst.IfExp)):
                test, how = node.test, "a condition"
            elif isinstance(node, cst.For):
                test, how = node.iter, "a trip count"
            if test is not None:
                for name in config_sources(flow.value_of(test)):
                    out.setdefault(name, (test, how))
            if not isinstance(node, cst.Call) or not isinstance(node.func, (cst.Name, cst.Attribute)):
                continue
            if flow.framework == "phiml" and last_name(node.func) in _DIMENSION_TYPES \
                    and names.qualified_names(node.func) & _SHAPE_CONSTRUCTORS:
                how = "a dimension size"
            elif flow.framework == "jax" and last_name(node.func) in JAX_SHAPE_NAMES \
                    and names.qualified_names(node.func) & JAX_SHAPES:
                how = "a shape"
            else:
                continue
            keywords = [a.keyword.value if a.keyword is not None else None for a in node.args]
            sizes = size_arguments(last_name(node.func), [(bool(a.star), k) for a, k in zip(node.args, keywords)]) \
                if how == "a shape" else [k not in ("dtype", "device") for k in keywords]
            for arg, size in zip(node.args, sizes):
                if not size:
                    continue  # no size: a dtype, a device, a shape call's data (`jnp.full(shape, fill_value)`'s value)
                value = traced.value_anywhere(arg.value)
                for name in config_sources(value):
                    out.setdefault(name, (node, how))
        return out

    def _check(self, context: JitContext, uses: dict[str, tuple[cst.CSTNode, str]]) -> None:
        fn = context.function
        roles = self.file.analysis.traced.roles(context)
        params = {p.name.value: p for p in all_params(fn)}
        ordered = [n for n in params if n in uses]
        if not ordered:
            return
        first = params[ordered[0]]
        keyword = "auxiliary_args" if context.framework == "phiml" else "static_argnames"
        listed = ", ".join(f"`{n}`" for n in ordered)
        hows = " and ".join(dict.fromkeys(uses[n][1] for n in ordered))
        defaulted = all(roles[n].role is Role.DEFAULTED for n in ordered if n in roles)
        api = context.transform.api.name
        shown = "jit_compile" if api.startswith("phiml.") else api
        consequence = {"phiml": "fails on jax, keeps the first value on torch", "jax": "it raises"}.get(context.framework, "it fails")
        is_ = "is" if len(ordered) == 1 else "are"
        if defaulted:
            message = f"{listed}, used as {hows}, {is_} traced by `{shown}` once a caller passes {'it' if len(ordered) == 1 else 'them'}"
            severity = Severity.WARNING
        else:
            message = f"{listed} {is_} traced by `{shown}` but used as {hows}: {consequence}"
            severity = None
        related = []  # why each is configuration (at the parameter), and where it needs a Python value
        for n in ordered:
            related.append((params[n].name, f"`{n}`: {roles[n].why if n in roles and roles[n].why else 'a Python value'}"))
            related.append((uses[n][0], f"`{n}` is used as {uses[n][1]} here"))
        if api not in _FIXABLE:
            self.report(first.name, message, hint=f"declare {listed} static for `{api}`", related=related, severity=severity,
                        note="not rewritten: only `math.jit_compile`, `math.jit_compile_linear` and `jax.jit` are edited")
            return
        edit, imports = self._edit(context, tuple(ordered))
        if edit is None:
            self.report(first.name, message, hint=f"add {listed} to `{keyword}`", related=related, severity=severity,
                        note="not rewritten: the transform's arguments cannot be edited faithfully here")
            return
        unproven = [n for n in ordered if not _proven(roles.get(n))]
        if not unproven:
            self.report(first.name, message, edits=[edit], imports=imports, related=related, note="one trace per value",
                        fix_description=f"name {listed} in `{keyword}`", severity=severity, invalidates=fn)
            return
        opened = next((roles[n].open for n in unproven if roles.get(n) is not None and roles[n].open), "")
        why = f"unsafe: {opened}, so the calls seen may not be all" if opened else \
            "unsafe: only a literal default says it is a Python value"
        self.report(first.name, message, edits=[edit], imports=imports, safety=Safety.UNSAFE, related=related,
                    note=f"one trace per value; {why}",
                    fix_description=f"name {listed} in `{keyword}` (unsafe: {'its callers are not all seen' if opened else 'the type is inferred from a default'})",
                    severity=severity, invalidates=fn)

    def _edit(self, context: JitContext, names: tuple[str, ...]):
        """The edit declaring `names` static where the transform is applied, and the imports it needs."""
        fn = context.function
        transform = context.transform
        if context.framework == "phiml":
            if context.how == "decorator" and isinstance(fn, cst.FunctionDef):
                decorators = with_auxiliary(fn, transform.expr, names)
                return (Replace(fn, fn.with_changes(decorators=decorators)) if decorators is not None else None), ()
            if context.how == "wrapped" and context.application is not None:
                call = _with_keyword(context.application, transform, "auxiliary_args", ",".join(names))
                return (Replace(context.application, call) if call is not None else None), ()
            return None, ()
        spelling = Spelling(self.file.analysis.names, self.file.analysis.identifiers)
        if context.how == "decorator" and isinstance(fn, cst.FunctionDef):
            decorators = with_static_argnames(fn, transform, names, spelling)
            if decorators is None:
                return None, ()
            return Replace(fn, fn.with_changes(decorators=decorators)), tuple(spelling.imports)
        if context.how == "wrapped" and context.application is not None:
            call = _with_keyword(context.application, transform, "static_argnames", names)
            return (Replace(context.application, call) if call is not None else None), ()
        return None, ()


def _proven(role: ParamRole | None) -> bool:
    """The role rests on an annotation, or on calls that are all the calls (every use of the function is a
    visible call) passing Python values or leaving it at its default."""
    return role is not None and role.proven and (role.role is Role.DEFAULTED or not role.why.startswith("defaults to"))


def _with_keyword(call: cst.Call, transform, keyword: str, value) -> cst.Call | None:
    """`jax.jit(f)` -> `jax.jit(f, static_argnames=('n',))`: only when the keyword is not there yet."""
    if transform.expr is not call.func or transform.keyword(keyword) is not None:
        return None
    if not call.args:
        return None
    return call.with_changes(args=[*call.args[:-1], call.args[-1].with_changes(comma=COMMA), keyword_arg(keyword, value)])


def _configurable_on_ast(facts, node: ast.AST) -> frozenset[str]:
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
    out |= facts.remote_python.get(node.name, set())
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
