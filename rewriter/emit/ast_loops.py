"""loops.py's decisions on CPython's `ast` (issue 45), with its answers and messages for the same code: which
names a loop carries, what its body may not hold, the bound a masked loop may have and the counter that gives
it. PML202, PML203 and PML206 decide here; their builders write the loop primitives on libcst (loops.py).

`file` is what a rule on `ast` sees (ast_rule.AstFile), `flow` an `ast` FunctionFlow. Where the trees differ,
libcst's reading is kept: every identifier counts as a read after a loop (an attribute's, a keyword's, a
parameter's), a counter's step is `i + 1` written as libcst's `deep_equals` compares it, whitespace included.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator, Sequence

from ..analysis.ast_names import arguments, in_source_order
from ..analysis.ast_structure import defined_before, enclosing_function, enclosing_loops
from ..analysis.trace_values import FunctionFlow
from .ast_agreement import branch_agreement
from .ast_branches import effect, values_of, written
from .branches import Refused

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_FORS = (ast.For, ast.AsyncFor)


# -- what the body binds and holds ----------------------------------------------------------------
def _bound_names(node: ast.AST | None, out: list[str]) -> None:
    if isinstance(node, ast.Name):
        if node.id not in out:
            out.append(node.id)
    elif isinstance(node, (ast.Tuple, ast.List)):
        for element in node.elts:
            _bound_names(element, out)
    elif isinstance(node, ast.Starred):
        _bound_names(node.value, out)


def _bind(name: str | None, out: list[str]) -> None:
    if name is not None and name not in out:
        out.append(name)


class _Capture:
    """A name a match pattern captures, met after its pattern's parts (`case [a, *b] as w`, `case {**rest}`)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def assigned_names(statements: Sequence[ast.stmt]) -> list[str]:
    """Names the statements bind (in order), not looking into nested functions (loops.assigned_names: an
    assignment's, a loop's, a comprehension's and `:=`'s targets, and the names of `as`); and the names a
    `match` captures, which bind as an assignment does."""
    out: list[str] = []
    stack: list = list(reversed(statements))
    while stack:
        node = stack.pop()
        if isinstance(node, _Capture):
            _bind(node.name, out)
            continue
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name is not None:
            stack.append(_Capture(node.name))
        elif isinstance(node, ast.MatchMapping) and node.rest is not None:
            stack.append(_Capture(node.rest))
        if isinstance(node, ast.Assign):
            for target in node.targets:
                _bound_names(target, out)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr)):
            _bound_names(node.target, out)
        elif isinstance(node, ast.alias):
            _bind(node.asname, out)
        elif isinstance(node, ast.withitem):
            _bound_names(node.optional_vars, out)
        elif isinstance(node, ast.ExceptHandler):
            _bind(node.name, out)
        stack.extend(reversed(in_source_order(node)))
    return out


class _Target:
    """An assignment's target, met where libcst's walk meets its AssignTarget: after the value it assigns."""

    __slots__ = ("node",)

    def __init__(self, node: ast.expr) -> None:
        self.node = node


def _body_children(node: ast.AST) -> list:
    if isinstance(node, ast.Assign):
        return [*(_Target(t) for t in node.targets), node.value]
    return in_source_order(node)


def check_body(statements: Sequence[ast.stmt], what: str) -> None:
    """Refuse what a loop-body function cannot express: early exits, side effects, nested defs (loops.check_body,
    met in the order its walk meets them)."""
    stack: list = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, _Target):
            if isinstance(node.node, (ast.Attribute, ast.Subscript)):
                raise Refused(f"an attribute or item assignment inside the {what} (a side effect)")
            stack.append(node.node)
            continue
        if isinstance(node, (ast.Break, ast.Continue)):
            raise Refused(f"`{type(node).__name__.lower()}` inside the {what}: a loop primitive runs a fixed body")
        if isinstance(node, ast.Return):
            raise Refused(f"`return` inside the {what}")
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal, ast.Raise)):
            kind = "yield" if isinstance(node, ast.YieldFrom) else type(node).__name__.lower()
            raise Refused(f"a `{kind}` inside the {what}")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            raise Refused(f"a nested definition inside the {what}")
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            raise Refused(f"a call evaluated for its side effect (`{_callee(node.value)}`) inside the {what}")
        stack.extend(_body_children(node))
    _check_targets(statements, what)


def _check_targets(statements: Sequence[ast.stmt], what: str) -> None:
    """Refuse an attribute or item written anywhere in a target (`x, self.b = ...`, `self.b += 1`, `for self.k
    in ...`, `with ... as self.f`, `del x[0]`): the loop primitive runs the body once, while tracing. After
    check_body's own walk, so that a body it refuses keeps the reason that walk names first."""
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Delete):
                if any(_writes_through(t) for t in node.targets):
                    raise Refused(f"an attribute or item deletion inside the {what} (a side effect)")
                continue
            if isinstance(node, ast.Assign):
                targets: list[ast.expr | None] = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension)):
                targets = [node.target]
            elif isinstance(node, ast.withitem):
                targets = [node.optional_vars]
            else:
                continue
            if any(_writes_through(t) for t in targets):
                raise Refused(f"an attribute or item assignment inside the {what} (a side effect)")


def _writes_through(target: ast.expr | None) -> bool:
    """The target is, or unpacks into, an attribute or an item."""
    if isinstance(target, (ast.Attribute, ast.Subscript)):
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_writes_through(t) for t in target.elts)
    return isinstance(target, ast.Starred) and _writes_through(target.value)


def check_head(expr: ast.expr, what: str) -> None:
    """Refuse a `:=` in the loop's condition or iterable (`what`: "loop's condition"): the name it binds
    would be bound inside the loop primitive's functions, or once, and be unbound or stale after the loop. A
    `:=` in a lambda binds in the lambda."""
    stack: list[ast.AST] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            raise Refused(f"`{node.target.id}` is bound by `:=` in the {what}: the rewritten loop would leave it "
                          "unbound or stale")
        stack.extend(reversed(in_source_order(node)))


def _callee(call: ast.Call) -> str:
    func = call.func
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts)) or "..."


# -- what is read after the loop ----------------------------------------------------------------------
def identifiers(node: ast.AST) -> Iterator[str]:
    """The identifiers `node` spells that libcst holds as Names of their own, beside its child expressions."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, ast.keyword) and node.arg is not None:
        yield node.arg
    elif isinstance(node, ast.arg):
        yield node.arg
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, ast.alias):
        yield from node.name.split(".")
        if node.asname is not None:
            yield node.asname
    elif isinstance(node, ast.ImportFrom) and node.module:
        yield from node.module.split(".")
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        yield from node.names
    elif isinstance(node, ast.ExceptHandler) and node.name is not None:
        yield node.name
    elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name is not None:
        yield node.name
    elif isinstance(node, ast.MatchMapping) and node.rest is not None:
        yield node.rest
    elif isinstance(node, ast.MatchClass):
        yield from node.kwd_attrs


def names_read_after(fn: ast.AST, loop: ast.stmt, names: Sequence[str]) -> list[str]:
    """Which of `names` are spelled in `fn` after the end of `loop` (loops.names_read_after: any identifier,
    in the order its walk meets them)."""
    end = (loop.end_lineno, loop.end_col_offset)
    out: list[str] = []
    stack: list[ast.AST] = list(fn.body)  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        if hasattr(node, "lineno") and (node.lineno, node.col_offset) > end:  # type: ignore[attr-defined]
            for name in identifiers(node):
                if name in names and name not in out:
                    out.append(name)
        stack.extend(in_source_order(node))
    return out


def names_read_again(file, loop: ast.stmt, names: Sequence[str]) -> list[str]:
    """Which of `names` an enclosing loop of the same function reads outside `loop`'s body (its own body, a
    `while`'s condition, `loop`'s head): its next pass reads what the last iteration left, which a loop
    primitive keeps inside its body function. Read as names_read_after reads, any identifier."""
    inside = {id(statement) for statement in loop.body}  # type: ignore[attr-defined]
    out: list[str] = []
    for enclosing in enclosing_loops(file.names, loop):
        head = [enclosing.test] if isinstance(enclosing, ast.While) else []
        stack: list[ast.AST] = [*head, *enclosing.body]  # type: ignore[attr-defined]
        while stack:
            node = stack.pop()
            if id(node) in inside:
                continue
            for name in identifiers(node):
                if name in names and name not in out:
                    out.append(name)
            stack.extend(in_source_order(node))
    return out


# -- the carried values -------------------------------------------------------------------------------
def carried(file, flow: FunctionFlow, loop: ast.stmt, body: Sequence[ast.stmt], anchor: ast.expr,
            exclude: Sequence[str] = ()) -> list[str]:
    """The loop-carried variables: names the body assigns that have a value before the loop (loops.carried).
    Refused when a name first assigned in the body is read after the loop, or when a carried value is a
    Python value (a loop primitive would turn it into a tracer and break static code using it)."""
    fn = flow.context.function
    assigned = [n for n in assigned_names(body) if n not in exclude]
    names = [n for n in assigned if defined_before(file.names, fn, n, loop)]
    fresh = [n for n in assigned if n not in names]
    leaked = names_read_after(fn, loop, fresh)
    if leaked:
        raise Refused(f"`{leaked[0]}` is first assigned inside the loop and read after it")
    again = names_read_again(file, loop, fresh)
    if again:
        raise Refused(f"`{again[0]}` is first assigned inside the loop and read by an enclosing loop on its next pass")
    env = flow.envs.get(id(anchor), {})
    static = [n for n in names if n in env and env[n].static]
    if static:
        raise Refused(f"the loop carries `{static[0]}`, a Python value: inside a loop primitive it would become a tracer")
    if not names:
        raise Refused("the loop computes nothing that outlives it")
    return names  # in order of first assignment


def carry_agreement(file, flow: FunctionFlow, loop: ast.stmt, body: Sequence[ast.stmt], names: Sequence[str],
                    conditions: Sequence[ast.expr] = ()) -> str:
    """loops.carry_agreement: why the carried values may change shape, dtype or structure between iterations
    ("" when the body provably keeps them); raises Refused when they provably do."""
    try:
        values = values_of(effect(list(body), allow_return=False, source=file))
    except Refused:
        return "what the body does to the carried values cannot be read as expressions"
    before: list[ast.expr] = [ast.Name(n, ast.Load()) for n in names]
    after = [values.get(n, ast.Name(n, ast.Load())) for n in names]
    return branch_agreement(file, flow, loop, [before, after], conditions, code=lambda value: written(file, value))


def body_values(file, body: Sequence[ast.stmt]) -> list[str]:
    """The names the body's straight-line effect assigns, in order (raises Refused where it has none)."""
    return list(values_of(effect(list(body), allow_return=False, source=file)))


def masked_names(file, flow: FunctionFlow, loop: ast.stmt, body: Sequence[ast.stmt]) -> list[str]:
    """The names a masked loop selects with `where`, each kept as it was in an iteration masked out: refused
    where one has no value before the loop (loops.masked_loop)."""
    names = body_values(file, body)
    fn = flow.context.function
    for name in names:
        if not defined_before(file.names, fn, name, loop):
            raise Refused(f"`{name}` has no value before the loop (a masked iteration must keep it unchanged)")
    return names


# -- a masked loop's bound ------------------------------------------------------------------------------
def bound_name(flow: FunctionFlow) -> str:
    """The base of a masked loop's bound constant's name: `<FUNCTION>_MAX_ITERATIONS`."""
    return f"{flow.context.name.strip('_').upper() or 'LOOP'}_MAX_ITERATIONS"


def masked_bound(file, flow: FunctionFlow, count: ast.expr | None, test: ast.expr | None,
                 body: Sequence[ast.stmt]) -> tuple[int, str] | None:
    """loops.masked_bound: the bound of a masked loop, from evidence, with where it comes from; None when
    there is none."""
    if count is not None:
        capped = _min_literal(count)
        if capped is not None:
            return capped, f"`{file.code_parenthesized(count)}`"
        param = _parameter_read(count)
        if param is not None and flow.context.how != "called":
            role = file.traced.roles(flow.context).get(param)
            literals = [v for v in (role.literals if role is not None else ()) if _is_int(v)]
            if literals and role is not None and role.proven and len(literals) == len(role.literals):
                return max(literals), f"the largest `{param}` the calls in this file pass"
    if test is not None:
        counter = counter_condition(file, flow, test, body)
        if counter is not None:
            return counter.bound, counter.source
    return None


@dataclass(frozen=True)
class Counter:
    """loops.Counter on `ast`: `while <rest> and i < K:` with `i = 0` before and `i += 1` in the body. `rest`
    is the other conjuncts, in order (libcst joins them from the left)."""

    name: str
    bound: int
    source: str
    conjunct: ast.expr
    rest: tuple[ast.expr, ...]
    increment: ast.stmt


def counter_condition(file, flow: FunctionFlow, test: ast.expr, body: Sequence[ast.stmt]) -> Counter | None:
    conjuncts = _conjuncts(test)
    for conjunct in conjuncts:
        found = _counter_bound(file, conjunct, body)
        if found is None or not _starts_at_zero(file, found[2], body):
            continue
        rest = tuple(c for c in conjuncts if c is not conjunct)
        increment = next((stmt for stmt in body if file.reading.alone_on_its_lines(stmt)
                          and _increments(file, stmt, found[2])), None)
        if increment is None:
            continue
        return Counter(found[2], found[0], found[1], conjunct, rest, increment)
    return None


def reads_name(statements: Sequence[ast.stmt], name: str) -> bool:
    """Some identifier in `statements` is `name` (libcst: some Name is; an attribute's, a keyword's too)."""
    return any(name in identifiers(node) for statement in statements for node in ast.walk(statement))


def _is_int(value: object) -> bool:
    return isinstance(value, int)


def _integer(node: ast.AST) -> bool:
    """libcst's Integer: an int literal (`True` is a Name there)."""
    return isinstance(node, ast.Constant) and type(node.value) is int


def _increments(file, statement: ast.stmt, name: str) -> bool:
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) and statement.target.id == name:
        return isinstance(statement.op, ast.Add) and _integer(statement.value) and file.code(statement.value) == "1"
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name) \
            and statement.targets[0].id == name:
        return file.code_parenthesized(statement.value) == f"{name} + 1"  # (libcst's deep_equals)
    return False


def _starts_at_zero(file, counter: str, body: Sequence[ast.stmt]) -> bool:
    """Every binding of `counter` outside the loop body is `counter = 0`: the scope's, and the two it does not
    hold, a `:=` in a comprehension (it binds in the function) and a `match` capture."""
    scope = file.names.scope(body[0]) if body else None
    if scope is None or counter not in scope:
        return False
    inside = {id(node) for statement in body for node in ast.walk(statement)}
    function = enclosing_function(file.names, body[0])
    if function is not None and _captured_or_walrus(function, counter, inside):
        return False
    for assignment in scope.assignments[counter]:
        node = getattr(assignment, "node", None)
        if node is None or id(node) in inside:
            continue
        parent = file.names.parent(node)
        if not (isinstance(node, ast.Name) and isinstance(parent, ast.Assign) and any(t is node for t in parent.targets)
                and _integer(parent.value) and parent.value.value == 0):  # type: ignore[attr-defined]
            return False
    return True


def _captured_or_walrus(function: ast.AST, name: str, inside: set[int]) -> bool:
    """`function` binds `name` with a `:=` or a `match` capture outside the nodes `inside`, not counting its
    nested functions and classes."""
    body = function.body  # type: ignore[attr-defined]
    stack: list[ast.AST] = list(body) if isinstance(body, list) else [body]
    while stack:
        node = stack.pop()
        if id(node) in inside or isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name) and node.target.id == name:
            return True
        if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name == name \
                or isinstance(node, ast.MatchMapping) and node.rest == name:
            return True
        stack.extend(in_source_order(node))
    return False


def _min_literal(expr: ast.expr) -> int | None:
    """K for `min(n, K)` / `math.minimum(n, K)` / `jnp.minimum(n, K)` with a literal int K."""
    if isinstance(expr, ast.Call) and len(expr.args) + len(expr.keywords) == 2 and \
            (isinstance(expr.func, ast.Name) and expr.func.id == "min" or
             isinstance(expr.func, ast.Attribute) and expr.func.attr == "minimum"):
        for argument in _arguments(expr):
            if _integer(argument):
                return argument.value  # type: ignore[attr-defined,no-any-return]
    return None


def _arguments(call: ast.Call) -> list[ast.expr]:
    """The values of a call's arguments in the order written (libcst's `Arg.value`: a star's operand too)."""
    return [a.value for a in arguments(call)]


def _parameter_read(expr: ast.expr) -> str | None:
    """`n` for `n`, `int(n)`, `n.max`, `n.item()`."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "int" \
            and len(expr.args) + len(expr.keywords) == 1:
        expr = _arguments(expr)[0]
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.args and not expr.keywords:
        expr = expr.func
    if isinstance(expr, ast.Attribute) and expr.attr in ("max", "item"):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _conjuncts(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [c for value in test.values for c in _conjuncts(value)]
    return [test]


def _counter_bound(file, conjunct: ast.expr, body: Sequence[ast.stmt]) -> tuple[int, str, str] | None:
    """`i < K` (K a literal int) where the body does `i += 1` or `i = i + 1`: at most K iterations."""
    if not (isinstance(conjunct, ast.Compare) and len(conjunct.ops) == 1 and isinstance(conjunct.left, ast.Name)
            and _integer(conjunct.comparators[0])):
        return None
    operator = conjunct.ops[0]
    if not isinstance(operator, (ast.Lt, ast.LtE)):
        return None
    limit: int = conjunct.comparators[0].value  # type: ignore[attr-defined]
    counter = conjunct.left.id
    try:
        increment = values_of(effect(list(body), allow_return=False, source=file)).get(counter)
    except Refused:
        return None
    if increment is None or not _steps(file, increment, counter):
        return None
    bound = limit + 1 if isinstance(operator, ast.LtE) else limit
    return bound, f"the counter condition `{file.code_parenthesized(conjunct)}`", counter


def _steps(file, value: ast.expr, counter: str) -> bool:
    """`value` is `counter + 1` as libcst's `deep_equals` has it: written so, no parentheses, one space each side."""
    return isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and isinstance(value.left, ast.Name) \
        and written(file, value) == f"{counter} + 1"
