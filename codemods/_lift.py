"""Lifting a lambda or nested def to module level (PML101, PML102): what it is, and the new def."""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.names import NameResolver
from rewriter.analysis.structure import ancestors, is_inside
from rewriter.analysis.transforms import match_application


@dataclass(frozen=True)
class Temporary:
    """A function created on every run of its enclosing function, as found at a use site."""

    function: cst.Lambda | cst.FunctionDef
    label: str  # "a lambda", "the nested def `op`"
    base_name: str  # what the lifted def is called, before collision avoidance
    remove: cst.BaseStatement | None = None  # the statement defining it, which the lift deletes
    decorators: tuple[cst.Decorator, ...] = ()  # decorators for the lifted def
    wrapper: cst.Call | None = None  # `math.jit_compile_linear(<it>)` at the site: becomes a decorator


def temporary_at(resolver: NameResolver, expr: cst.BaseExpression, role: str, enclosing: str,
                 shown: str | None = None) -> Temporary | str | None:
    """What `expr` (an argument at a use site) creates per call; a refusal reason; or None (stable).

    Recognised: a lambda; `jit_compile_linear(<lambda or nested def>)`; a name bound once, in an
    enclosing function, to a def or to a lambda, and used only here. `enclosing` names the lifted
    def; `shown` is the enclosing function's own name, for messages (default: `enclosing`).
    """
    shown = shown or enclosing
    if isinstance(expr, cst.Lambda):
        return Temporary(expr, "a lambda", f"_{enclosing}_{role}")
    if isinstance(expr, cst.Call):
        app = match_application(resolver, expr, (Kind.JIT,))
        if app is None or app.transform.api.name != "phiml.math.jit_compile_linear" or app.transform.keywords:
            return None
        inner = temporary_at(resolver, app.function, role, enclosing, shown)
        if not isinstance(inner, Temporary):
            return inner
        decorator = cst.Decorator(app.transform.expr)
        return Temporary(inner.function, inner.label, inner.base_name, inner.remove, (decorator, *inner.decorators), expr)
    if not isinstance(expr, cst.Name):
        return None
    assignments = resolver.assignments(expr)
    if len(assignments) != 1:
        return None
    assignment = next(iter(assignments))
    node = getattr(assignment, "node", None)
    if at_module_level(resolver, node):
        return None  # created once: already stable
    outside = [r for r in assignment.references if not any(x is node for x in ancestors(resolver, r.node))]
    if len(outside) != len(assignment.references):
        return "it calls itself through the enclosing scope"
    if isinstance(node, cst.FunctionDef):
        if len(outside) != 1:
            return f"it is also used elsewhere in `{shown}`"
        eager = eager_decorator(resolver, node)
        if eager:
            return eager
        return Temporary(node, f"the nested def `{node.name.value}`", f"_{enclosing}_{node.name.value}", node,
                         tuple(node.decorators))
    value = _assigned_alone(resolver, node)
    if value is None:
        return None
    statement, assigned = value
    if isinstance(assigned, cst.Call):  # op = math.jit_compile_linear(lambda ...)
        inner = temporary_at(resolver, assigned, expr.value, enclosing, shown)
        if not isinstance(inner, Temporary) or inner.remove is not None:
            return None if inner is None or isinstance(inner, Temporary) else inner
        if len(outside) != 1:
            return f"it is also used elsewhere in `{shown}`"
        return Temporary(inner.function, f"`{expr.value}`", f"_{enclosing}_{expr.value}", statement, inner.decorators)
    if len(outside) != 1:
        return f"it is also used elsewhere in `{shown}`"
    return Temporary(assigned, f"the lambda `{expr.value}`", f"_{enclosing}_{expr.value}", statement)


# Transforms that do their work when the def runs: at module level they would run at import.
EAGER_TRANSFORMS = frozenset({"torch.jit.script", "torch.jit.trace"})


def eager_decorator(resolver: NameResolver, fn: cst.FunctionDef) -> str | None:
    """Why `fn`'s decorators must keep running where the def is (None: they only wrap lazily)."""
    from rewriter.analysis.transforms import match_transform

    for decorator in fn.decorators:
        transform = match_transform(resolver, decorator.decorator, (Kind.JIT,))
        if transform is None:
            text = cst.Module([]).code_for_node(decorator.decorator)
            return f"its decorator `{text}` runs when the def runs; at module level it would run at import"
        if transform.api.name in EAGER_TRANSFORMS:
            return f"`{transform.api.name}` compiles when the def runs; at module level it would compile at import"
    return None


def at_module_level(resolver: NameResolver, node: cst.CSTNode | None) -> bool:
    """Bound outside every function (None: a binding without a node, such as an import or builtin)."""
    if node is None:
        return True
    return not any(isinstance(a, (cst.FunctionDef, cst.Lambda)) for a in ancestors(resolver, node))


def is_called(resolver: NameResolver, node: cst.CSTNode) -> bool:
    """`node(...)`: the node is the callee of its parent."""
    parent = resolver.parent(node)
    return isinstance(parent, cst.Call) and parent.func is node


COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
NO_SPACE_EQUAL = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))


def _assigned_alone(resolver: NameResolver, target: cst.CSTNode | None) -> tuple[cst.SimpleStatementLine, cst.BaseExpression] | None:
    """`name = lambda ...` / `name = <call>` as the only statement of its line: (line, value)."""
    if not isinstance(target, cst.Name):
        return None
    assign_target = resolver.parent(target)
    assign = resolver.parent(assign_target) if isinstance(assign_target, cst.AssignTarget) else None
    line = resolver.parent(assign) if isinstance(assign, cst.Assign) else None
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.value, (cst.Lambda, cst.Call))
            and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
        return None
    return line, assign.value


def lifted_def(temporary: Temporary, name: str, captured: tuple[str, ...], spacing: cst.BaseStatement,
               imports: tuple[cst.SimpleStatementLine, ...] = (), after_first: bool = False) -> cst.FunctionDef:
    """The module-level def: the function's own parameters, then one per captured value; the
    comments above the statement it is deleted from move with it. `imports` made inside the
    enclosing function that it reads are repeated at the top of its body (captures.Captures).

    `after_first`: the captured values come right after the first parameter instead, for APIs that
    call `f(x, *args, **kwargs)`: the values passed first keep the function's own further
    parameters bound as the call site binds them (positionally, by keyword, or to their defaults)."""
    fn = temporary.function
    extra = [cst.Param(cst.Name(c)) for c in captured]
    if after_first and fn.params.posonly_params:
        first, *rest = fn.params.posonly_params
        params = fn.params.with_changes(posonly_params=[first, *extra, *rest])
    elif after_first and fn.params.params:
        first, *rest = fn.params.params
        params = fn.params.with_changes(params=[first, *extra, *rest])
    else:
        params = fn.params.with_changes(params=[*fn.params.params, *extra])
    if isinstance(params.star_arg, cst.ParamStar):
        params = params.with_changes(star_arg=cst.MaybeSentinel.DEFAULT)
    params = _comma_free(params)
    blank = []
    for line in getattr(spacing, "leading_lines", ()):
        if line.comment is not None:
            break
        blank.append(line)
    blank += leading_comments(temporary.remove)
    if isinstance(fn, cst.Lambda):
        body = cst.IndentedBlock([*imports, cst.SimpleStatementLine([cst.Return(fn.body.with_changes(lpar=[], rpar=[])
                                                                                if _safe_unparen(fn.body) else fn.body)])])
        return cst.FunctionDef(cst.Name(name), params, body, decorators=list(temporary.decorators), leading_lines=blank)
    if imports:
        fn = fn.with_changes(body=_with_imports(fn.body, imports))
    kept = [d for d in fn.decorators]
    extra_decorators = [d for d in temporary.decorators if all(d is not k for k in kept)]
    decorators = [*extra_decorators, *kept]
    if decorators:
        decorators[0] = decorators[0].with_changes(leading_lines=blank)
    return fn.with_changes(name=cst.Name(name), params=params, decorators=decorators,
                           leading_lines=[] if decorators else blank)


def _with_imports(body: cst.BaseSuite, imports) -> cst.BaseSuite:
    """The body with `imports` first (after a docstring)."""
    if not isinstance(body, cst.IndentedBlock):
        body = cst.IndentedBlock([cst.SimpleStatementLine(body.body)])
    statements = list(body.body)
    first = statements[0] if statements else None
    docstring = isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and isinstance(first.body[0], cst.Expr) \
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    at = 1 if docstring else 0
    return body.with_changes(body=[*statements[:at], *imports, *statements[at:]])


def _safe_unparen(expr: cst.BaseExpression) -> bool:
    """Parentheses around a lambda body are only needed inside the lambda's expression."""
    return bool(expr.lpar) and not isinstance(expr, (cst.Tuple, cst.GeneratorExp, cst.Yield))


def _comma_free(params: cst.Parameters) -> cst.Parameters:
    """Parameters with their separators recomputed (a lambda's `x, y` may lack spaces)."""
    def clean(p: cst.Param) -> cst.Param:
        return p.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_param=cst.SimpleWhitespace(""))

    return params.with_changes(posonly_params=[clean(p) for p in params.posonly_params],
                               params=[clean(p) for p in params.params],
                               kwonly_params=[clean(p) for p in params.kwonly_params])


class _Rewrite(cst.CSTTransformer):
    """Replace nodes (by identity in the original tree) and delete statements, closing their gaps."""

    def __init__(self, replacements: dict, removals: list[cst.BaseStatement]) -> None:
        super().__init__()
        self.replacements = replacements
        self.removals = {id(r) for r in removals}

    def on_leave(self, original_node, updated_node):
        if id(original_node) in self.removals:
            return cst.RemovalSentinel.REMOVE
        new = self.replacements.get(id(original_node), updated_node)
        if callable(new) and not isinstance(new, cst.CSTNode):  # built from the updated node (nested edits)
            new = new(updated_node)
        if self.removals and isinstance(original_node, (cst.IndentedBlock, cst.Module)):
            # the statement after a deleted run takes its place, and the blank lines before the run
            kept, gap, out = iter(new.body), None, []
            for statement in original_node.body:
                if id(statement) in self.removals:
                    if gap is None:
                        gap = [line for line in statement.leading_lines if line.comment is None]
                    continue
                survivor = next(kept)
                if gap is not None:
                    survivor = survivor.with_changes(leading_lines=gap + [
                        line for line in survivor.leading_lines if line.comment is not None])
                    gap = None
                out.append(survivor)
            new = new.with_changes(body=out)
        return new


def rewrite_function_body(fn: cst.FunctionDef, replacements: dict,
                          remove: cst.BaseStatement | list[cst.BaseStatement] | None) -> cst.BaseSuite:
    """`fn`'s body with `replacements` applied and `remove` deleted (one edit covers them all).

    `replacements`: id of an original node -> its new node, or a function of the updated node
    (for edits that must keep what other replacements did inside it)."""
    removals = remove if isinstance(remove, list) else [remove] if remove is not None else []
    return fn.body.visit(_Rewrite(replacements, removals))


def leading_comments(statement: cst.BaseStatement | None) -> list[cst.EmptyLine]:
    """The comment lines right above a statement that is lifted: they move with it."""
    if statement is None:
        return []
    return [line for line in statement.leading_lines if line.comment is not None]


# -- loops and late binding ---------------------------------------------------------------------
_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def loops_repeating(resolver: NameResolver, node: cst.CSTNode, once: cst.CSTNode | None = None) -> list[cst.CSTNode]:
    """The loops of `node`'s function that run `node` again, innermost first; with `once`, only those
    that do not run `once` again too (a function created in the same iteration is new each time)."""
    out = []
    child = node
    for a in ancestors(resolver, node):
        if isinstance(a, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            break
        if isinstance(a, cst.For):
            repeats = child is a.body
        elif isinstance(a, cst.While):
            repeats = child is a.body or child is a.test
        elif isinstance(a, _LOOPS):  # a comprehension: everything but its first iterable runs per item
            repeats = not is_inside(resolver, node, a.for_in.iter)
        else:
            repeats = False
        if repeats and (once is None or not any(x is a for x in ancestors(resolver, once))):
            out.append(a)
        child = a
    return out


def bindings_of(resolver: NameResolver, fn: cst.CSTNode, names: tuple[str, ...]) -> dict[str, list[cst.CSTNode]]:
    """Where each of `names` (values `fn` captures) is bound outside `fn`: the binding nodes."""
    from rewriter.analysis.bindings import free_names

    out: dict[str, list[cst.CSTNode]] = {n: [] for n in names}
    for free in free_names(resolver, fn):
        if free.node.value in out:
            for a in free.assignments:
                node = getattr(a, "node", None)
                if node is not None and all(node is not x for x in out[free.node.value]):
                    out[free.node.value].append(node)
    return out


def rebound_in_loop(resolver: NameResolver, bindings: dict[str, list[cst.CSTNode]],
                    loops: list[cst.CSTNode]) -> tuple[str, cst.CSTNode, cst.CSTNode] | None:
    """A captured name some loop of `loops` binds (its target or a store in its body): (name, binding, loop)."""
    for loop in loops:
        for name, nodes in bindings.items():
            for node in nodes:
                if is_inside(resolver, node, loop):
                    return name, node, loop
    return None


def written_elsewhere(resolver: NameResolver, fn: cst.CSTNode,
                      bindings: dict[str, list[cst.CSTNode]]) -> tuple[str, cst.CSTNode] | None:
    """A captured name another function in its scope declares `nonlocal` (it may change while the API runs)."""
    for name, nodes in bindings.items():
        owners = {id(o): o for o in (next((a for a in ancestors(resolver, n) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
                                     for n in nodes) if o is not None}
        for owner in owners.values():
            stack = [owner.body]
            while stack:
                node = stack.pop()
                if node is fn:
                    continue
                if isinstance(node, cst.Nonlocal) and any(n.name.value == name for n in node.names):
                    return name, node
                stack.extend(node.children)
    return None


def assigned_within(resolver: NameResolver, node: cst.CSTNode, names: tuple[str, ...], skip: cst.CSTNode) -> tuple[str, cst.CSTNode] | None:
    """`(name := ...)` for a captured name inside `node` (outside `skip`, the function itself)."""
    wanted = set(names)
    stack = [node]
    while stack:
        current = stack.pop()
        if current is skip:
            continue
        if isinstance(current, cst.NamedExpr) and isinstance(current.target, cst.Name) and current.target.value in wanted:
            return current.target.value, current
        stack.extend(current.children)
    return None
