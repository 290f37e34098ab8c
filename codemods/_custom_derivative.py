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

import ast
import functools
from dataclasses import dataclass
from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_captures import captures
from rewriter.analysis.ast_module import identifiers_in
from rewriter.analysis.ast_structure import top_level_statement
from rewriter.ast_rule import PlannedFix

from ._ast_lift import eager_decorator, is_called
from ._lift import Temporary, lifted_def, rewrite_function_body

DERIVATIVES = {"jax.custom_vjp": "defvjp", "jax.custom_jvp": "defjvp"}
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Plan:
    """What to report of a custom-derivative def nested in a function, and its fix where it can be lifted."""
    message: str
    refusal: str | None = None  # why it is not lifted (the finding's `note`, after "not lifted: ")
    fix: PlannedFix | None = None
    lifted_name: str = ""
    hint: str = ""  # without a fix: what to do by hand
    related: tuple = ()  # (node, what it is there): places the refusal refers to


def plan(file, fn: ast.FunctionDef | ast.AsyncFunctionDef, outer: ast.FunctionDef | ast.AsyncFunctionDef) -> Plan | None:
    """What to do with `fn`, a def nested directly in `outer` (None: not a custom derivative)."""
    names = file.names
    api = None
    for decorator in fn.decorator_list:
        expr = decorator.func if type(decorator) is ast.Call else decorator
        found = names.api(expr, (Kind.CUSTOM_GRADIENT,)) if type(expr) in (ast.Name, ast.Attribute) else None
        if found is not None and found.name in DERIVATIVES:
            api = found.name
    if api is None:
        return None
    rule = DERIVATIVES[api]
    name = fn.name
    if only_used_locally(names, fn, name, rule):
        return None  # built, given its rules and called here: no cache keyed on it misses (module docstring)
    message = f"`{name}` is a new `@{api}` function on each call of `{outer.name}`: a `jax.jit` of it traces it anew"
    if names.parent(fn) is not outer or not any(s is fn for s in outer.body):
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
        elif type(parent) is ast.Attribute and parent.value is ref.node and parent.attr == rule:
            call = names.parent(parent)
            statement = names.parent(call)
            if not (type(call) is ast.Call and call.func is parent and type(statement) is ast.Expr
                    and any(s is statement for s in outer.body) and file.python.alone_on_its_lines(statement)):
                return Plan(message, f"`{name}.{rule}` is used in a form that cannot move (only `{name}.{rule}(...)` as a statement can)")
            rule_statements.append((statement, call))
        elif type(parent) is ast.Return and parent.value is ref.node:
            reason, hint = factory_advice(outer, name, api)
            return Plan(message, reason, hint=hint)
        else:
            return Plan(message, f"`{name}` leaves `{outer.name}` or is used other than by calls")
    if len(rule_statements) != 1 or not calls:
        return Plan(message, f"it needs exactly one `{name}.{rule}(...)` statement and at least one call")
    statement, rule_call = rule_statements[0]
    group: list[ast.FunctionDef | ast.AsyncFunctionDef] = [fn]
    for arg in sorted([*rule_call.args, *rule_call.keywords], key=lambda a: (a.lineno, a.col_offset)):
        value = arg.value if type(arg) in (ast.Starred, ast.keyword) else arg
        helper = _nested_helper(names, value, outer)
        if isinstance(helper, str):
            return Plan(message, helper)
        if helper is not None:
            group.append(helper)
    for member in group:
        why = eager_decorator(file, member) if member is not fn else None
        result = captures(names, member)
        if why or result.refusal or result.names or result.imports:
            if not why and result.refusal:
                return Plan(message, result.refusal, related=result.related)
            reason = why or f"`{member.name}` reads {', '.join(f'`{n}`' for n in result.names)} from `{outer.name}`"
            return Plan(message, reason)
    anchor = top_level_statement(names, file.reading.lines, fn)
    label = outer.name.lstrip("_") or "function"
    renamed = {member.name: file.fresh_name(f"_{label}_{member.name}") for member in group}
    build = partial(_write_group, renamed=renamed, members=len(group))
    fix = PlannedFix(f"define it once at module level as `{renamed[name]}`", (anchor, outer), build,
                     needs=(*group, statement, *calls))
    return Plan(message, None, fix, renamed[name])


def _write_group(context, anchor: cst.CSTNode, outer: cst.FunctionDef, *rest, renamed: dict[str, str], members: int):
    """The group (the decorated def, its rule functions, its rule statement) at module level under their new
    names, and `outer`'s body without them, calling the function by its new name."""
    group, (expression, *calls) = rest[:members], rest[members:]
    line = context.analysis.names.parent(expression)
    if not isinstance(line, cst.SimpleStatementLine):
        return None
    lifted = []
    for member in group:
        new = renamed[member.name.value]
        lifted.append(lifted_def(Temporary(member, member.name.value, new, member, ()), new, (), anchor))
    blank = [e for e in getattr(anchor, "leading_lines", ()) if e.comment is None] or [cst.EmptyLine(), cst.EmptyLine()]
    rule_line = line.visit(_renamer()(renamed)).with_changes(leading_lines=blank)
    replacements = {id(c): cst.Name(renamed[c.value]) for c in calls}
    body = rewrite_function_body(outer, replacements, [*group, line])
    from rewriter.codemod import InsertBefore, Replace

    return [InsertBefore(anchor, (*lifted, rule_line)), Replace(outer.body, body)]


def only_used_locally(names, binding: ast.AST, name: str, rule: str) -> bool:
    """Every read of `name` in the scope of `binding` (whatever else its other bindings give it: `if ...: f =
    jax.custom_vjp(g) else: f = h`) calls it or gives it its rules (`f(x)`, `f.defvjp(...)`, `@f.defjvp`):
    the function never leaves the one that builds it."""
    scope = names.scope(binding)
    assignments = [a for a in scope.assignments[name]] if scope is not None else []
    if not assignments:
        return False
    for access in (r for a in assignments for r in a.references):
        parent = names.parent(access.node)
        if type(parent) is ast.Call and parent.func is access.node:
            continue
        if type(parent) is ast.Attribute and parent.value is access.node and parent.attr.startswith(rule):
            continue
        return False
    return True


def factory_advice(outer: ast.FunctionDef | ast.AsyncFunctionDef, built: str, api: str) -> tuple[str, str]:
    """Why a function that builds and returns a custom-derivative function is not lifted (it wraps
    what it is given, so it cannot move to module level), and what to do by hand: keep its results;
    or the module-level form, with what it reads from the factory's parameters as `nondiff_argnums`.

    Building the `custom_vjp` and its `defvjp` per call costs little, and eager or `jax.grad` calls
    trace the wrapped function no more often than those of one built once (a `functools.partial` of
    a module-level `custom_vjp` costs the same as the per-call build)."""
    factory = outer.name
    a = outer.args
    params = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
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


def _read_in_nested(outer: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Every identifier spelled in the defs and lambdas nested in `outer`, their names and decorators
    included (what they capture, at most)."""
    read: set[str] = set()
    stack: list[ast.AST] = list(outer.body)
    while stack:
        node = stack.pop()
        if type(node) in (*_DEFS, ast.Lambda):
            read |= identifiers_in(node)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return read


def _nested_helper(names, expr: ast.expr, outer: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.FunctionDef | ast.AsyncFunctionDef | str | None:
    """A rule function defined in `outer` and used only by the rule call (None: defined elsewhere)."""
    if type(expr) is not ast.Name:
        return "its rules are not plain names"
    assignments = names.assignments(expr)
    if len(assignments) != 1:
        return f"`{expr.id}` is bound more than once"
    assignment = next(iter(assignments))
    node = getattr(assignment, "node", None)
    if type(node) not in _DEFS or names.parent(node) is not outer or not any(s is node for s in outer.body):
        scope = getattr(assignment, "scope", None)
        if scope is not None and type(scope).__name__ == "GlobalScope":
            return None  # module level already
        return f"`{expr.id}` is not a def in `{outer.name}`"
    if len(assignment.references) != 1:
        return f"`{expr.id}` is also used elsewhere"
    return node


@functools.cache
def _renamer() -> type:
    """The class below, made once libcst is imported (lazy_libcst)."""

    class Renamer(cst.CSTTransformer):
        def __init__(self, renamed: dict[str, str]) -> None:
            super().__init__()
            self.renamed = renamed

        def leave_Name(self, original_node, updated_node):
            new = self.renamed.get(original_node.value)
            return updated_node.with_changes(value=new) if new else updated_node

    return Renamer
