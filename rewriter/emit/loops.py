"""Loops on traced values, emitted (PML202, PML203, PML206): loop-carried variables, body checks, and
the jax loop functions and PhiML bounded masked loops the fixes write."""
from __future__ import annotations

from dataclasses import dataclass

from ..lazy_libcst import cst

from ..analysis.structure import defined_before, top_level_statement
from ..analysis.trace_values import FunctionFlow
from ..codemod import InsertBefore
from ..cst_tree import children, scope_kinds
from .agreement import branch_agreement
from .branches import Refused, effect, reads_any
from .frameworks import Emitter
from .statements import assign


def _bound_names(node: cst.CSTNode, out: list[str]) -> None:
    if isinstance(node, cst.Name):
        if node.value not in out:
            out.append(node.value)
    elif isinstance(node, (cst.Tuple, cst.List)):
        for el in node.elements:
            _bound_names(el.value, out)
    elif isinstance(node, cst.StarredElement):
        _bound_names(node.value, out)


def assigned_names(statements) -> list[str]:
    """Names the statements bind (in order), not looking into nested functions."""
    scopes = scope_kinds()
    binding_targets = {cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr}  # (their `target` binds)
    out: list[str] = []
    stack = list(reversed(list(statements)))
    while stack:
        node = stack.pop()
        kind = type(node)  # (exact classes: cst_tree.concrete)
        if kind in scopes:
            continue
        if kind in binding_targets:
            _bound_names(node.target, out)
        elif kind is cst.AsName:
            _bound_names(node.name, out)
        stack.extend(reversed(children(node)))
    return out


def check_body(statements, what: str) -> None:
    """Refuse what a loop-body function cannot express: early exits, side effects, nested defs."""
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Break, cst.Continue)):
            raise Refused(f"`{type(node).__name__.lower()}` inside the {what}: a loop primitive runs a fixed body")
        if isinstance(node, cst.Return):
            raise Refused(f"`return` inside the {what}")
        if isinstance(node, (cst.Yield, cst.Global, cst.Nonlocal, cst.Raise)):
            raise Refused(f"a `{type(node).__name__.lower()}` inside the {what}")
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            raise Refused(f"a nested definition inside the {what}")
        if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            raise Refused(f"a call evaluated for its side effect (`{_callee(node.value)}`) inside the {what}")
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, (cst.Attribute, cst.Subscript)):
            raise Refused(f"an attribute or item assignment inside the {what} (a side effect)")
        stack.extend(children(node))


def _callee(call: cst.Call) -> str:
    func = call.func
    parts = []
    while isinstance(func, cst.Attribute):
        parts.append(func.attr.value)
        func = func.value
    if isinstance(func, cst.Name):
        parts.append(func.value)
    return ".".join(reversed(parts)) or "..."


def names_read_after(file, fn: cst.CSTNode, loop: cst.CSTNode, names: list[str]) -> list[str]:
    """Which of `names` are read in `fn` after the end of `loop`."""
    positions = file.analysis.names.positions
    end = positions[loop].end
    out = []
    stack = [fn.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value in names and node.value not in out:
            start = positions[node].start
            if (start.line, start.column) > (end.line, end.column):
                out.append(node.value)
        stack.extend(children(node))
    return out


def carried(file, flow: FunctionFlow, loop: cst.CSTNode, body, anchor: cst.CSTNode, exclude=()) -> list[str]:
    """The loop-carried variables: names the body assigns that have a value before the loop.
    Refused when a name first assigned in the body is read after the loop, or when a carried value
    is a Python value (a loop primitive would turn it into a tracer and break static code using it)."""
    fn = flow.context.function
    assigned = [n for n in assigned_names(body) if n not in exclude]
    names = [n for n in assigned if defined_before(file.analysis.names, fn, n, loop)]
    fresh = [n for n in assigned if n not in names]
    leaked = names_read_after(file, fn, loop, fresh)
    if leaked:
        raise Refused(f"`{leaked[0]}` is first assigned inside the loop and read after it")
    env = flow.envs.get(id(anchor), {})
    static = [n for n in names if n in env and env[n].static]
    if static:
        raise Refused(f"the loop carries `{static[0]}`, a Python value: inside a loop primitive it would become a tracer")
    if not names:
        raise Refused("the loop computes nothing that outlives it")
    return names  # in order of first assignment


def _params(names: list[str], *, index: str | None) -> cst.Parameters:
    params = [cst.Param(cst.Name(index))] if index is not None else []
    params.append(cst.Param(cst.Name(names[0] if len(names) == 1 else "carry")))
    return cst.Parameters(params)


def _pack(names: list[str], parens: bool = False) -> cst.BaseExpression:
    if len(names) == 1:
        return cst.Name(names[0])
    tuple_ = cst.Tuple([cst.Element(cst.Name(n)) for n in names])
    return tuple_ if parens else tuple_.with_changes(lpar=[], rpar=[])


def _unpack(names: list[str]) -> list[cst.BaseStatement]:
    if len(names) == 1:
        return []
    return [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(_pack(names))], cst.Name("carry"))])]


def jax_fori(emit: Emitter, names: list[str], index: str, body_name: str, start, stop, body) -> list[cst.BaseStatement]:
    """`def body(i, carry): ...; return carry` and `carry = lax.fori_loop(start, stop, body, carry)`."""
    function = cst.FunctionDef(
        cst.Name(body_name), _params(names, index=index),
        cst.IndentedBlock([*_unpack(names), *body, cst.SimpleStatementLine([cst.Return(_pack(names))])]))
    call = emit.fori_loop(start, stop, body_name, _pack(names, parens=True))
    return [function, cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(_pack(names))], call)])]


def jax_while(emit: Emitter, names: list[str], cond_name: str, body_name: str, test, body) -> list[cst.BaseStatement]:
    condition = cst.FunctionDef(
        cst.Name(cond_name), _params(names, index=None),
        cst.IndentedBlock([*_unpack(names), cst.SimpleStatementLine([cst.Return(test)])]))
    function = cst.FunctionDef(
        cst.Name(body_name), _params(names, index=None),
        cst.IndentedBlock([*_unpack(names), *body, cst.SimpleStatementLine([cst.Return(_pack(names))])]),
        leading_lines=[])
    call = emit.while_loop(cond_name, body_name, _pack(names, parens=True))
    return [condition, function, cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(_pack(names))], call)])]


def masked_loop(file, flow: FunctionFlow, emit: Emitter, loop: cst.CSTNode, body, active_expr, index: str,
                bound: str) -> list[cst.BaseStatement]:
    """PhiML: `for index in range(BOUND): active = <cond>; x = math.where(active, <x after body>, x)`."""
    result = effect(body, allow_return=False)
    fn = flow.context.function
    for name in result.values:
        if not defined_before(file.analysis.names, fn, name, loop):
            raise Refused(f"`{name}` has no value before the loop (a masked iteration must keep it unchanged)")
    active = file.analysis.fresh_name("active")
    statements = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(active))], active_expr)])]
    for name, value in result.values.items():
        selected = emit.where(cst.Name(active), value, cst.Name(name))
        statements.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], selected)]))
    names = list(result.values)
    if any(reads_any(v, names[:k]) for k, v in enumerate(result.values.values())):
        values = [emit.where(cst.Name(active), v, cst.Name(n)) for n, v in result.values.items()]
        statements = statements[:1] + [cst.SimpleStatementLine([cst.Assign(
            [cst.AssignTarget(_pack(names))], cst.Tuple([cst.Element(v) for v in values], lpar=[], rpar=[]))])]
    iterable = cst.Call(cst.Name("range"), [cst.Arg(cst.Name(bound))])
    return [cst.For(cst.Name(index), iterable, cst.IndentedBlock(statements))]


def bound_constant(file, flow: FunctionFlow, bound: int) -> tuple[str, InsertBefore]:
    """A module constant `<FUNCTION>_MAX_ITERATIONS = <bound>` for a masked loop's bound: its name, and
    the edit that inserts it before the function's top-level statement."""
    base = f"{flow.context.name.strip('_').upper() or 'LOOP'}_MAX_ITERATIONS"
    name = file.analysis.fresh_name(base)
    anchor = top_level_statement(file.analysis.names, flow.context.function)
    return name, InsertBefore(anchor, (assign(name, cst.Integer(str(bound)), before=anchor),))


def carry_agreement(file, flow: FunctionFlow, loop: cst.CSTNode, body, names: list[str],
                    conditions: list[cst.BaseExpression] = ()) -> str:
    """Why a loop primitive (or a masked loop's `where`) may see a carried value change shape, dtype or
    structure between iterations ("" when the body provably keeps them); raises Refused when it
    provably does not (`lax.fori_loop` and `while_loop` reject that, `where` would broadcast it)."""
    try:
        result = effect(body, allow_return=False)
    except Refused:
        return "what the body does to the carried values cannot be read as expressions"
    before = [cst.Name(n) for n in names]
    after = [result.values.get(n, cst.Name(n)) for n in names]
    return branch_agreement(file, flow, loop, [before, after], conditions)


def masked_bound(file, flow: FunctionFlow, count: cst.BaseExpression | None, test: cst.BaseExpression | None,
                 body) -> tuple[int, str] | None:
    """The bound of a masked loop, from evidence, with where it comes from; None when there is none.

    A masked loop runs every iteration of its bound in every trace (each a copy of the body): a bound
    must come from the program, never be made up. Evidence: `range(min(n, K))`; the largest count the
    calls in this file pass (`smooth(u, math.tensor(5))`); a `while` conjunct `i < K` on a counter the
    body increments by one and that starts at 0.
    """
    if count is not None:
        capped = _min_literal(count)
        if capped is not None:
            return capped, f"`{cst.Module([]).code_for_node(count)}`"
        param = _parameter_read(count)
        if param is not None and flow.context.how != "called":
            role = file.analysis.traced.roles(flow.context).get(param)
            literals = [v for v in (role.literals if role is not None else ()) if isinstance(v, int)]
            if literals and role is not None and role.proven and len(literals) == len(role.literals):
                return max(literals), f"the largest `{param}` the calls in this file pass"
    if test is not None:
        counter = counter_condition(file, flow, test, body)
        if counter is not None:
            return counter.bound, counter.source
    return None


@dataclass(frozen=True)
class Counter:
    """`while <rest> and i < K:` with `i = 0` before and `i += 1` in the body: at most K iterations,
    and `i` is the loop index of a masked `for i in range(K)`."""

    name: str
    bound: int
    source: str
    conjunct: cst.BaseExpression
    rest: cst.BaseExpression | None  # the condition without the counter's conjunct
    increment: cst.BaseStatement


def counter_condition(file, flow: FunctionFlow, test: cst.BaseExpression, body) -> Counter | None:
    conjuncts = _conjuncts(test)
    for conjunct in conjuncts:
        found = _counter_bound(conjunct, body)
        if found is None or not _starts_at_zero(file, flow, found[2], body):
            continue
        others = [c for c in conjuncts if c is not conjunct]
        rest = None
        for other in others:
            rest = other if rest is None else cst.BooleanOperation(rest, cst.And(), other)
        increment = next((stmt for stmt in body if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                          and _increments(stmt.body[0], found[2])), None)
        if increment is None:
            continue
        return Counter(found[2], found[0], found[1], conjunct, rest, increment)
    return None


def _increments(small: cst.BaseSmallStatement, name: str) -> bool:
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value == name:
        return isinstance(small.operator, cst.AddAssign) and isinstance(small.value, cst.Integer) and small.value.value == "1"
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
            and small.targets[0].target.value == name:
        return small.value.deep_equals(cst.BinaryOperation(cst.Name(name), cst.Add(), cst.Integer("1")))
    return False


def _starts_at_zero(file, flow: FunctionFlow, counter: str, body) -> bool:
    """Every binding of `counter` outside the loop body is `counter = 0`."""
    scope = file.analysis.names.scope(body[0]) if body else None
    if scope is None or counter not in scope:
        return False
    inside = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        inside.add(id(node))
        stack.extend(children(node))
    for assignment in scope[counter]:
        node = getattr(assignment, "node", None)
        if node is None or id(node) in inside:
            continue
        parent = file.analysis.names.parent(node)
        assign = file.analysis.names.parent(parent) if isinstance(parent, cst.AssignTarget) else None
        if not (isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Integer) and assign.value.evaluated_value == 0):
            return False
    return True


def _min_literal(expr: cst.BaseExpression) -> int | None:
    """K for `min(n, K)` / `math.minimum(n, K)` / `jnp.minimum(n, K)` with a literal int K."""
    if isinstance(expr, cst.Call) and len(expr.args) == 2 and \
            (isinstance(expr.func, cst.Name) and expr.func.value == "min" or
             isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "minimum"):
        for arg in expr.args:
            if isinstance(arg.value, cst.Integer):
                return int(arg.value.evaluated_value)
    return None


def _parameter_read(expr: cst.BaseExpression) -> str | None:
    """`n` for `n`, `int(n)`, `n.max`, `n.item()`."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "int" and len(expr.args) == 1:
        expr = expr.args[0].value
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and not expr.args:
        expr = expr.func
    if isinstance(expr, cst.Attribute) and expr.attr.value in ("max", "item"):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _conjuncts(test.left) + _conjuncts(test.right)
    return [test]


def _counter_bound(conjunct: cst.BaseExpression, body) -> tuple[int, str, str] | None:
    """`i < K` (K a literal int) where the body does `i += 1` or `i = i + 1`: at most K iterations."""
    if not (isinstance(conjunct, cst.Comparison) and len(conjunct.comparisons) == 1
            and isinstance(conjunct.left, cst.Name) and isinstance(conjunct.comparisons[0].comparator, cst.Integer)):
        return None
    operator = conjunct.comparisons[0].operator
    limit = int(conjunct.comparisons[0].comparator.evaluated_value)
    if not isinstance(operator, (cst.LessThan, cst.LessThanEqual)):
        return None
    counter = conjunct.left.value
    try:
        increment = effect(body, allow_return=False).values.get(counter)
    except Refused:
        return None
    step = cst.BinaryOperation(cst.Name(counter), cst.Add(), cst.Integer("1"))
    if increment is None or not increment.deep_equals(step):
        return None
    bound = limit + 1 if isinstance(operator, cst.LessThanEqual) else limit
    return bound, f"the counter condition `{cst.Module([]).code_for_node(conjunct)}`", counter
