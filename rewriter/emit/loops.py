"""Loops on traced values, written (PML202, PML203, PML206): the jax loop functions and PhiML bounded masked
loops the fixes write on libcst, as the rules decided them on `ast` (ast_loops.py)."""
from __future__ import annotations

from ..lazy_libcst import cst

from ..codemod import InsertBefore
from .branches import effect, reads_any
from .frameworks import Emitter
from .statements import assign


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


def keep_comments(function: cst.BaseStatement, loop: cst.For | cst.While) -> cst.BaseStatement:
    """`function`, the def a loop's body became, with the loop's comments: the one on its line goes on the
    def's line, those after its last statement before the def's `return`."""
    if not isinstance(function, cst.FunctionDef):
        return function
    body = loop.body
    header = body.header if isinstance(body, cst.IndentedBlock) else getattr(body, "trailing_whitespace", None)
    footer = list(body.footer) if isinstance(body, cst.IndentedBlock) else []
    block = function.body
    changes: dict = {}
    if header is not None and header.comment is not None:
        changes["header"] = header
    statements = list(block.body)  # type: ignore[arg-type]
    if statements and any(line.comment is not None for line in footer):
        statements[-1] = statements[-1].with_changes(leading_lines=[*statements[-1].leading_lines, *footer])
        changes["body"] = statements
    return function.with_changes(body=block.with_changes(**changes)) if changes else function


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


def conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of `a and b and c` (ast_loops._conjuncts on libcst)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return conjuncts(test.left) + conjuncts(test.right)
    return [test]
