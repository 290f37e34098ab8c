"""PML101 for jax: a `@jax.custom_vjp` / `@jax.custom_jvp` function defined inside a function.

Built and used where it is defined (called, given its rules), a new custom-derivative function per
call costs only its construction: eager calls, `jax.grad` and an enclosing `jax.jit` trace it no more
often than one defined once (docs/benchmarks.md). It matters where the function leaves the one that
builds it: returned (a factory), passed on or stored, it may be handed to `jax.jit`, whose cache is
keyed by the function object, so each new one is traced anew. Such a definition is a group of
statements — the decorated def, its rule functions and the `defvjp`/`defjvp` call — and the group
moves to module level together.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.captures import captures
from rewriter.analysis.structure import top_level_statement

from ._lift import Temporary, eager_decorator, is_called, lifted_def, rewrite_function_body

DERIVATIVES = {"jax.custom_vjp": "defvjp", "jax.custom_jvp": "defjvp"}


@dataclass(frozen=True)
class Plan:
    message: str
    refusal: str | None = None  # why it is not lifted (the finding's `note`, after "not lifted: ")
    edits: tuple = ()
    lifted_name: str = ""
    hint: str = ""  # without a fix: what to do by hand
    related: tuple = ()  # (node, what it is there): places the refusal refers to


def plan(file, fn: cst.FunctionDef, outer: cst.FunctionDef) -> Plan | None:
    """What to do with `fn`, a def nested directly in `outer` (None: not a custom derivative)."""
    names = file.analysis.names
    api = None
    for decorator in fn.decorators:
        expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        found = names.api(expr, (Kind.CUSTOM_GRADIENT,)) if isinstance(expr, (cst.Name, cst.Attribute)) else None
        if found is not None and found.name in DERIVATIVES:
            api = found.name
    if api is None:
        return None
    rule = DERIVATIVES[api]
    name = fn.name.value
    if only_used_locally(names, fn.name, rule):
        return None  # built, given its rules and called here: no cache keyed on it misses (module docstring)
    message = f"`{name}` is a new `@{api}` function on each call of `{outer.name.value}`: a `jax.jit` of it traces it anew"
    if names.parent(fn) is not outer.body:
        return Plan(message, "it is defined under a condition or in a loop")
    scope = names.scope(fn)
    assignment = next((a for a in scope.assignments[name] if getattr(a, "node", None) is fn), None) if scope else None
    if assignment is None or len(scope.assignments[name]) != 1:
        return Plan(message, f"`{name}` is bound more than once")
    rule_statements, calls = [], []
    for ref in assignment.references:
        parent = names.parent(ref.node)
        if is_called(names, ref.node):
            calls.append(ref.node)
        elif isinstance(parent, cst.Attribute) and parent.value is ref.node and parent.attr.value == rule:
            call = names.parent(parent)
            expr = names.parent(call)
            line = names.parent(expr)
            if not (isinstance(call, cst.Call) and isinstance(expr, cst.Expr) and isinstance(line, cst.SimpleStatementLine)
                    and names.parent(line) is outer.body and len(line.body) == 1):
                return Plan(message, f"`{name}.{rule}` is used in a form that cannot move (only `{name}.{rule}(...)` as a statement can)")
            rule_statements.append((line, call))
        elif isinstance(parent, cst.Return) and parent.value is ref.node:
            reason, hint = factory_advice(outer, name, api)
            return Plan(message, reason, hint=hint)
        else:
            return Plan(message, f"`{name}` leaves `{outer.name.value}` or is used other than by calls")
    if len(rule_statements) != 1 or not calls:
        return Plan(message, f"it needs exactly one `{name}.{rule}(...)` statement and at least one call")
    line, rule_call = rule_statements[0]
    group: list[tuple[cst.FunctionDef, str]] = [(fn, name)]
    for arg in rule_call.args:
        helper = _nested_helper(names, arg.value, outer)
        if isinstance(helper, str):
            return Plan(message, helper)
        if helper is not None:
            group.append((helper, helper.name.value))
    for member, member_name in group:
        why = eager_decorator(names, member) if member is not fn else None
        result = captures(names, member)
        if why or result.refusal or result.names or result.imports:
            if not why and result.refusal:
                return Plan(message, result.refusal, related=result.related)
            reason = why or f"`{member_name}` reads {', '.join(f'`{n}`' for n in result.names)} from `{outer.name.value}`"
            return Plan(message, reason)
    anchor = top_level_statement(names, fn)
    label = outer.name.value.lstrip("_") or "function"
    renamed = {member_name: file.analysis.fresh_name(f"_{label}_{member_name}") for _, member_name in group}
    lifted = []
    for member, member_name in group:
        temporary = Temporary(member, member_name, renamed[member_name], member, ())
        lifted.append(lifted_def(temporary, renamed[member_name], (), anchor))
    blank = [e for e in getattr(anchor, "leading_lines", ()) if e.comment is None] or [cst.EmptyLine(), cst.EmptyLine()]
    rule_line = line.visit(_Renamer(renamed)).with_changes(leading_lines=blank)
    replacements = {id(c): cst.Name(renamed[name]) for c in calls}
    body = rewrite_function_body(outer, replacements, [m for m, _ in group] + [line])
    from rewriter.codemod import InsertBefore, Replace

    return Plan(message, None, (InsertBefore(anchor, (*lifted, rule_line)), Replace(outer.body, body)), renamed[name])


def only_used_locally(names, target: cst.Name, rule: str) -> bool:
    """Every read of the name `target` binds (whatever else its other bindings give it: `if ...: f =
    jax.custom_vjp(g) else: f = h`) calls it or gives it its rules (`f(x)`, `f.defvjp(...)`, `@f.defjvp`):
    the function never leaves the one that builds it."""
    scope = names.scope(target)
    assignments = [a for a in scope.assignments[target.value]] if scope is not None else []
    if not assignments:
        return False
    for access in (r for a in assignments for r in a.references):
        parent = names.parent(access.node)
        if isinstance(parent, cst.Call) and parent.func is access.node:
            continue
        if isinstance(parent, cst.Attribute) and parent.value is access.node and parent.attr.value.startswith(rule):
            continue
        return False
    return True


def factory_advice(outer: cst.FunctionDef, built: str, api: str) -> tuple[str, str]:
    """Why a function that builds and returns a custom-derivative function is not lifted (it wraps
    what it is given, so it cannot move to module level), and what to do by hand: keep its results;
    or the module-level form, with what it reads from the factory's parameters as `nondiff_argnums`.

    Building the `custom_vjp` and its `defvjp` per call costs little, and eager or `jax.grad` calls
    trace the wrapped function no more often than those of one built once (a `functools.partial` of
    a module-level `custom_vjp` costs the same as the per-call build)."""
    factory = outer.name.value
    params = [p.name.value for p in (*outer.params.posonly_params, *outer.params.params, *outer.params.kwonly_params)]
    read = _read_in_nested(outer)
    captured = [p for p in params if p in read]
    reason = f"`{factory}` returns `{built}`, so it is a factory"
    advice = f"call `{factory}` once per function it wraps and keep the result"
    if not captured:
        return reason, advice
    shown = ", ".join(captured)
    argnums = ", ".join(str(i) for i in range(len(captured))) + ("," if len(captured) == 1 else "")
    rule = DERIVATIVES.get(api, "defvjp")
    lifted = f"_{factory.lstrip('_') or 'function'}_{built}"
    return reason, (f"{advice}; or define it once at module level: `@functools.partial({api}, nondiff_argnums=({argnums}))` "
                    f"on `def {lifted}({shown}, *args)`, its rules taking `{shown}` first too, `{lifted}.{rule}(...)` once, "
                    f"and `{factory}` returning `functools.partial({lifted}, {shown})`")


def _read_in_nested(outer: cst.FunctionDef) -> set[str]:
    """Names read inside the defs and lambdas nested in `outer` (what they capture, at most)."""
    read: set[str] = set()

    class _Reads(cst.CSTVisitor):
        def __init__(self) -> None:
            self.depth = 0

        def visit_FunctionDef(self, node) -> None:
            self.depth += 1

        def leave_FunctionDef(self, node) -> None:
            self.depth -= 1

        def visit_Lambda(self, node) -> None:
            self.depth += 1

        def leave_Lambda(self, node) -> None:
            self.depth -= 1

        def visit_Name(self, node) -> None:
            if self.depth:
                read.add(node.value)

    outer.body.visit(_Reads())
    return read


def _nested_helper(names, expr: cst.BaseExpression, outer: cst.FunctionDef) -> cst.FunctionDef | str | None:
    """A rule function defined in `outer` and used only by the rule call (None: defined elsewhere)."""
    if not isinstance(expr, cst.Name):
        return "its rules are not plain names"
    assignments = names.assignments(expr)
    if len(assignments) != 1:
        return f"`{expr.value}` is bound more than once"
    assignment = next(iter(assignments))
    node = getattr(assignment, "node", None)
    if not isinstance(node, cst.FunctionDef) or names.parent(node) is not outer.body:
        scope = getattr(assignment, "scope", None)
        if scope is not None and type(scope).__name__ == "GlobalScope":
            return None  # module level already
        return f"`{expr.value}` is not a def in `{outer.name.value}`"
    if len(assignment.references) != 1:
        return f"`{expr.value}` is also used elsewhere"
    return node


class _Renamer(cst.CSTTransformer):
    def __init__(self, renamed: dict[str, str]) -> None:
        super().__init__()
        self.renamed = renamed

    def leave_Name(self, original_node, updated_node):
        new = self.renamed.get(original_node.value)
        return updated_node.with_changes(value=new) if new else updated_node
