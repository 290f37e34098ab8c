"""Loops on traced values, emitted (PML202, PML203, PML206): the jax loop functions and PhiML bounded masked
loops the fixes write, and PML206's readings of loop-carried variables and body checks on libcst (PML202 and
PML203 decide on `ast`: ast_loops.py)."""
from __future__ import annotations

from ..lazy_libcst import cst

from ..analysis.structure import defined_before
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


def masked_loop(emit: Emitter, body, active_expr, active: str, index: str, bound: str) -> list[cst.BaseStatement]:
    """PhiML: `for index in range(BOUND): active = <cond>; x = math.where(active, <x after body>, x)`, as
    ast_loops.masked_names decided it (every name the body assigns has a value before the loop)."""
    result = effect(body, allow_return=False)
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


def bound_constant(anchor: cst.BaseStatement, name: str, bound: int) -> InsertBefore:
    """The edit that inserts a masked loop's bound, `<FUNCTION>_MAX_ITERATIONS = <bound>`, before `anchor`, the
    function's top-level statement."""
    return InsertBefore(anchor, (assign(name, cst.Integer(str(bound)), before=anchor),))


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


def conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of `a and b and c` (ast_loops._conjuncts on libcst)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return conjuncts(test.left) + conjuncts(test.right)
    return [test]
