"""How an argument of a call inside a loop changes from one iteration to the next (PML401).

PhiML keys its traces on auxiliary values, non-tensor values, tensor shapes and function objects;
jax on static arguments and shapes; tensorflow on Python values and shapes. What matters here is
whether a key *comes back*: `0.5 + i` for `i` in a `range` never repeats, nor does a shape that grows
with the loop or a lambda created per iteration, so each call traces and no trace is ever reused.
`schedule[i]` or `i % 2` may repeat, and then the cache serves the repeats.

Read on CPython's `ast`. Where `ast` folds what the source spells apart, the source decides: an
implicit concatenation (`"a" f"{i}"`) is not one f-string (`AstModule.string_pieces`).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator

from rewriter.analysis.ast_captures import walked
from rewriter.analysis.ast_flow import last_name
from rewriter.analysis.ast_names import arguments, branches

STABLE, VARIES, NEW_EACH_TIME = "stable", "varies", "new"  # the key: same, may repeat, never repeats

# Arithmetic that keeps a counter a counter (no wrap-around); `%` and bit operations may repeat.
_MONOTONE = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow)
# Calls that convert a value without making different values equal.
_CONVERSIONS = frozenset({"float", "int", "str", "repr", "format", "tensor", "wrap", "asarray", "array", "constant",
                          "convert_to_tensor"})
# Calls whose result has a shape taken from their arguments.
SHAPE_BUILDERS = frozenset({"spatial", "channel", "batch", "instance", "dual", "zeros", "ones", "full", "random_normal",
                            "random_uniform", "linspace", "arange", "range", "empty", "rand", "randn", "normal", "uniform"})
# Calls that make an array longer than the one they are given.
GROWERS = frozenset({"concat", "concatenate", "stack", "append", "pad", "hstack", "vstack", "cat", "expand"})

_FORS = (ast.For, ast.AsyncFor)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (*_DEFS, ast.Lambda, ast.ClassDef)
# Statements whose body runs on some iterations only (a counter updated there changes only sometimes).
_CONDITIONAL = (ast.If, ast.Try, ast.TryStar, *_FORS, ast.While, *_DEFS, ast.ClassDef, ast.Match)


@dataclass(frozen=True)
class Loop:
    """The innermost loop around a call: its counters (never repeat) and the other names it changes."""

    node: ast.AST
    counters: frozenset[str]
    changed: frozenset[str]
    growing: frozenset[str]  # names re-assigned from themselves by concatenation: their shape grows
    # names the body assigns exactly once, from an expression not reading themselves: `k = 0.5 + i`
    # then `step(x, k)` is judged by `0.5 + i`
    values: tuple[tuple[str, ast.expr], ...] = ()
    # counters updated only under an `if` or `try` of the body (`if plateau: n += 1`): they never take a
    # value twice, but change only on some iterations, so a call re-traces each time they change
    sometimes: frozenset[str] = frozenset()
    module: Any = field(default=None, compare=False)  # the AstModule read (how strings are written)

    @classmethod
    def of(cls, node: ast.AST, module) -> "Loop":
        """The loop `node` (a `for`, a `while` or a comprehension) of `module` (an AstModule)."""
        counters: set[str] = set()
        changed: set[str] = set()
        header = _header(node)
        if header is not None and not _few_constants(header.iter, module):
            counters |= _counter_targets(header.target, header.iter)
            changed |= names_in(header.target)
        body = loop_body(node)
        changed |= assigned_names(body)
        growing: set[str] = set()
        accumulating: set[str] = set()
        others: set[str] = set()
        for statement in _statements(body):
            found = _accumulators(statement)
            accumulating |= found
            if not found:
                others |= assigned_names([statement])
            growing |= _grown(statement)
        counters |= accumulating - others  # `k = 1.0; k = k + 0.5` restarts every iteration: not a counter
        sometimes = (accumulating - others) - _unconditional_accumulators(body)
        return cls(node, frozenset(counters), frozenset(changed - counters), frozenset(growing), _single_values(body),
                   frozenset(sometimes), module)

    def without(self, names: frozenset[str] | set[str]) -> "Loop":
        """This loop, blind to `names` (what inner loops assign: judged per inner loop)."""
        return replace(self, counters=self.counters - names, changed=self.changed - names, growing=self.growing - names,
                       values=tuple((n, v) for n, v in self.values if n not in names), sometimes=self.sometimes - names)

    def value_of(self, name: str) -> ast.expr | None:
        return next((value for n, value in self.values if n == name), None)

    # -- what one expression does across iterations ---------------------------------------------
    def key(self, expr: ast.expr, following: frozenset[str] = frozenset()) -> str:
        """STABLE, VARIES (may repeat) or NEW_EACH_TIME (never repeats: a counter, a fresh value). `following`:
        the names whose values are being read, so that values that read each other (`new = old + d; old = new`)
        are read once."""
        if isinstance(expr, ast.Name):
            if expr.id in self.counters:
                return NEW_EACH_TIME
            value = self.value_of(expr.id) if expr.id not in following else None
            if value is not None:
                return self.key(value, following | {expr.id})
            return VARIES if expr.id in self.changed else STABLE
        if isinstance(expr, ast.Constant):
            return STABLE
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            return self.key(expr.operand, following)
        if isinstance(expr, ast.BinOp):
            left, right = self.key(expr.left, following), self.key(expr.right, following)
            if VARIES in (left, right) or not isinstance(expr.op, _MONOTONE):
                return VARIES if self._reads_changing(expr) else STABLE
            return NEW_EACH_TIME if NEW_EACH_TIME in (left, right) and STABLE in (left, right) else left
        if isinstance(expr, ast.JoinedStr) and self.module.string_pieces(expr) == 1:
            keys = [self.key(p.value, following) for p in expr.values if isinstance(p, ast.FormattedValue)]
            return VARIES if VARIES in keys else NEW_EACH_TIME if NEW_EACH_TIME in keys else STABLE
        if isinstance(expr, ast.Call) and last_name(expr.func) in _CONVERSIONS and (expr.args or expr.keywords):
            return self.key(arguments(expr)[0].value, following)
        return VARIES if self._reads_changing(expr) else STABLE

    def every_iteration(self, expr: ast.expr, following: frozenset[str] = frozenset()) -> bool:
        """Whether a key that never repeats changes on every iteration, not only on some (a counter
        updated under a condition)."""
        value = self.value_of(expr.id) if isinstance(expr, ast.Name) and expr.id not in self.counters \
            and expr.id not in following else None
        if value is not None:
            return self.every_iteration(value, following | {expr.id})  # type: ignore[attr-defined]
        read = read_names(expr)
        return bool(read & (self.counters - self.sometimes)) or not read & self.sometimes

    def _reads_changing(self, expr: ast.AST) -> bool:
        return bool(read_names(expr) & (self.counters | self.changed))

    def grows(self, expr: ast.expr) -> ast.AST | None:
        """The part of `expr` whose shape changes every iteration (never repeating), if any."""
        if isinstance(expr, ast.Name) and expr.id in self.growing:
            return expr
        value = self.value_of(expr.id) if isinstance(expr, ast.Name) else None
        if value is not None:
            return self.grows(value)
        for node in walked(expr):
            if isinstance(node, ast.Call) and last_name(node.func) in SHAPE_BUILDERS:
                if any(self.key(a.value) == NEW_EACH_TIME for a in arguments(node)):
                    return node
            if isinstance(node, ast.Slice) and any(
                    part is not None and self.key(part) == NEW_EACH_TIME for part in (node.lower, node.upper)) \
                    and not self.fixed_window(node):
                return node
        return None

    def fixed_window(self, node: ast.Slice) -> bool:
        """`x[i:i + bs]`, `x[b * bs:(b + 1) * bs]`: both bounds move with the counter and their distance
        does not, so every slice has one width (only the last may be shorter: one extra trace, not a leak).
        Decided by evaluating `upper - lower` for a few values of the names it reads; anything that is not
        plain integer arithmetic is not a window."""
        if node.lower is None or node.upper is None or node.step is not None:
            return False
        names = sorted(read_names(node.lower) | read_names(node.upper))
        widths = set()
        for trial in range(4):
            values = {n: 3 + 7 * trial + 13 * k if n in self.counters else 5 + 11 * k for k, n in enumerate(names)}
            lower, upper = _integer_value(node.lower, values), _integer_value(node.upper, values)
            if lower is None or upper is None:
                return False
            widths.add(upper - lower)
        return len(widths) == 1

    def new_function(self, expr: ast.expr) -> bool:
        """A function object created anew on every iteration: a lambda, or a def in the loop body."""
        if isinstance(expr, ast.Lambda):
            return True
        if isinstance(expr, ast.Call) and last_name(expr.func) == "partial":
            return any(self.new_function(a.value) or self.key(a.value) != STABLE for a in arguments(expr))
        return isinstance(expr, ast.Name) and expr.id in self.changed and expr.id in _defined_functions(self.node)


_INTEGER_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
                      ast.FloorDiv: lambda a, b: a // b if b else None}


def _integer_value(expr: ast.expr, values: dict[str, int]) -> int | None:
    """The value of integer arithmetic over names (given values) and literals; None for anything else."""
    if isinstance(expr, ast.Constant):
        return expr.value if type(expr.value) is int else None
    if isinstance(expr, ast.Name):
        return values.get(expr.id)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _integer_value(expr.operand, values)
        return None if inner is None else -inner
    if isinstance(expr, ast.BinOp) and type(expr.op) in _INTEGER_OPERATORS:
        left, right = _integer_value(expr.left, values), _integer_value(expr.right, values)
        if left is None or right is None:
            return None
        return _INTEGER_OPERATORS[type(expr.op)](left, right)
    return None


def _header(loop: ast.AST) -> ast.For | ast.AsyncFor | ast.comprehension | None:
    """The `for` of a loop that has one (a comprehension: its first)."""
    if isinstance(loop, _FORS):
        return loop
    if isinstance(loop, COMPREHENSIONS):
        return loop.generators[0]
    return None


def loop_body(loop: ast.AST) -> list:
    """What runs every iteration, as libcst's reading took it: a statement loop's body (not its `else`);
    a comprehension whole."""
    return loop.body if isinstance(loop, (*_FORS, ast.While)) else [loop]


def bound_names(loop: ast.AST) -> set[str]:
    """Every name a loop binds: its target and what its body assigns, constant or not."""
    header = _header(loop)
    out = names_in(header.target) if header is not None else set()
    return out | assigned_names(loop_body(loop))


def bound_names_in(statement: ast.AST) -> set[str]:
    """Names a statement binds anywhere in it: assignments, and the targets of the loops in it."""
    out = assigned_names([statement])
    for node in _walk(statement):
        if isinstance(node, (*_FORS, ast.comprehension)):
            out |= names_in(node.target)
    return out


def assigned_names(statements: Iterable[ast.AST]) -> set[str]:
    """Names the statements bind by assignment (`=`, `+=`, `:=`, a `for` or comprehension target, `as`),
    not looking into nested defs, lambdas or classes."""
    out: set[str] = set()
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                _bound(target, out)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr)):
            _bound(node.target, out)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            _bound(node.optional_vars, out)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.alias) and node.asname:
            out.add(node.asname)
        stack.extend(branches(node))
    return out


def _bound(target: ast.AST, out: set[str]) -> None:
    if isinstance(target, ast.Name):
        out.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _bound(element, out)
    elif isinstance(target, ast.Starred):
        _bound(target.value, out)


def names_in(node: ast.AST) -> set[str]:
    """Every name spelled in `node` (a target `a[i]` spells `a` and `i`)."""
    return {n.id for n in _walk(node) if isinstance(n, ast.Name)}


def read_names(expr: ast.AST | list) -> set[str]:
    """Names spelled in an expression or statements, as libcst's names there: not keyword names of
    arguments, not attribute names; the names of parameters, defs, classes and imports too."""
    out: set[str] = set()
    for node in _walk(expr):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (*_DEFS, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.alias):
            out.add(node.name.split(".", 1)[0])
            if node.asname:
                out.add(node.asname)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module.split(".", 1)[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            out.add(node.rest)
        elif isinstance(node, ast.MatchClass):
            out.update(node.kwd_attrs)
    return out


def _walk(node: ast.AST | list) -> Iterator[ast.AST]:
    """Every node under `node` (or the nodes of a list), itself included, in no particular order."""
    stack = list(node) if isinstance(node, list) else [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(branches(current))


def _statements(body: list) -> Iterator[ast.Assign | ast.AugAssign]:
    """The assignments of a loop body, in the order written (nested functions included)."""
    for statement in body:
        for node in walked(statement):
            if isinstance(node, ast.Assign) or isinstance(node, ast.AugAssign):
                yield node  # type: ignore[misc]


def _targets(statement: ast.Assign | ast.AugAssign) -> list[ast.expr]:
    return statement.targets if isinstance(statement, ast.Assign) else [statement.target]  # type: ignore[union-attr]


def _single_values(body: list) -> tuple[tuple[str, ast.expr], ...]:
    """`name = value` for names assigned once in the loop body, whose value does not read them."""
    seen: dict[str, ast.expr | None] = {}
    for statement in _statements(body):
        targets = _targets(statement)
        for target in targets:
            for name in (n.id for n in walked(target) if isinstance(n, ast.Name)):
                simple = isinstance(statement, ast.Assign) and len(targets) == 1 and isinstance(target, ast.Name)
                seen[name] = statement.value if simple and name not in seen else None
    return tuple((name, value) for name, value in seen.items() if value is not None and name not in read_names(value))


def _counter_targets(target: ast.expr, iterable: ast.expr) -> set[str]:
    """`for i in range(...)` and `for i, x in enumerate(...)`: `i` takes a new value every iteration."""
    if isinstance(iterable, ast.Call) and last_name(iterable.func) == "range" and isinstance(target, ast.Name):
        return {target.id}
    if isinstance(iterable, ast.Call) and last_name(iterable.func) == "enumerate" and isinstance(target, ast.Tuple) \
            and target.elts and isinstance(target.elts[0], ast.Name):
        return {target.elts[0].id}
    return set()


def _few_constants(iterable: ast.expr, module) -> bool:
    """`for mode in ("a", "b")`: a few values written out, traced once each and then served by the cache
    (names, numbers and strings as written: not an f-string, a complex number or a concatenation)."""
    if not isinstance(iterable, (ast.Tuple, ast.List, ast.Set)):
        return False
    for element in iterable.elts:  # type: ignore[attr-defined]
        value = element.value if isinstance(element, ast.Starred) else element
        if isinstance(value, ast.Name):
            continue
        if not isinstance(value, ast.Constant) or isinstance(value.value, (complex, type(...))):
            return False
        if isinstance(value.value, (str, bytes)) and module.string_pieces(value) != 1:
            return False
    return True


def _accumulators(statement: ast.AST) -> set[str]:
    """`t += dt`, `n = n + 1`: a value that only moves one way (when the step is a constant)."""
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) \
            and isinstance(statement.op, (ast.Add, ast.Sub, ast.Mult)) \
            and not isinstance(statement.value, (ast.Call, ast.Subscript)):
        return {statement.target.id}
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        name = statement.targets[0].id
        value = statement.value
        if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)) \
                and isinstance(value.left, ast.Name) and value.left.id == name and _step(value.right):
            return {name}
    return set()


def _step(node: ast.expr) -> bool:
    """A name or a number written out (libcst: an Integer, a Float or a Name, which `True` and `None` are)."""
    return isinstance(node, ast.Name) or isinstance(node, ast.Constant) and (
        isinstance(node.value, (int, float, bool)) or node.value is None)


def _unconditional_accumulators(body: list) -> set[str]:
    """Accumulators updated by a statement of the body that runs on every iteration: one not inside
    an `if`, `try` or nested loop of the body (nor in a nested function or class)."""
    out: set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _CONDITIONAL):
            continue
        if isinstance(node, ast.Assign) or isinstance(node, ast.AugAssign):
            out |= _accumulators(node)
        stack.extend(branches(node))
    return out


def _grown(statement: ast.AST) -> set[str]:
    """`x = math.concat([x, y], 'x')`: `x` is longer after every iteration."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
        return set()
    name = statement.targets[0].id
    value = statement.value
    if isinstance(value, ast.Call) and last_name(value.func) in GROWERS and (value.args or value.keywords):
        if any(isinstance(n, ast.Name) and n.id == name for n in _walk(arguments(value)[0].value)):
            return {name}
    return set()


def _defined_functions(loop: ast.AST) -> set[str]:
    out = set()
    for node in _walk(loop):
        if isinstance(node, _DEFS):
            out.add(node.name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return out
