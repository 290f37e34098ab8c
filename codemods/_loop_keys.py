"""How an argument of a call inside a loop changes from one iteration to the next (PML401).

PhiML keys its traces on auxiliary values, non-tensor values, tensor shapes and function objects;
jax on static arguments and shapes; tensorflow on Python values and shapes. What matters here is
whether a key *comes back*: `0.5 + i` for `i` in a `range` never repeats, nor does a shape that grows
with the loop or a lambda created per iteration, so each call traces and no trace is ever reused.
`schedule[i]` or `i % 2` may repeat, and then the cache serves the repeats.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst

from rewriter.analysis.names import last_name
from rewriter.cst_tree import children
from rewriter.emit.loops import assigned_names


STABLE, VARIES, NEW_EACH_TIME = "stable", "varies", "new"  # the key: same, may repeat, never repeats

# Arithmetic that keeps a counter a counter (no wrap-around); `%` and bit operations may repeat.
_MONOTONE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power)
# Calls that convert a value without making different values equal.
_CONVERSIONS = frozenset({"float", "int", "str", "repr", "format", "tensor", "wrap", "asarray", "array", "constant",
                          "convert_to_tensor"})
# Calls whose result has a shape taken from their arguments.
SHAPE_BUILDERS = frozenset({"spatial", "channel", "batch", "instance", "dual", "zeros", "ones", "full", "random_normal",
                            "random_uniform", "linspace", "arange", "range", "empty", "rand", "randn", "normal", "uniform"})
# Calls that make an array longer than the one they are given.
GROWERS = frozenset({"concat", "concatenate", "stack", "append", "pad", "hstack", "vstack", "cat", "expand"})


@dataclass(frozen=True)
class Loop:
    """The innermost loop around a call: its counters (never repeat) and the other names it changes."""

    node: cst.CSTNode
    counters: frozenset[str]
    changed: frozenset[str]
    growing: frozenset[str]  # names re-assigned from themselves by concatenation: their shape grows
    # names the body assigns exactly once, from an expression not reading themselves: `k = 0.5 + i`
    # then `step(x, k)` is judged by `0.5 + i`
    values: tuple[tuple[str, cst.BaseExpression], ...] = ()
    # counters updated only under an `if` or `try` of the body (`if plateau: n += 1`): they never take a
    # value twice, but change only on some iterations, so a call re-traces each time they change
    sometimes: frozenset[str] = frozenset()

    @classmethod
    def of(cls, node: cst.CSTNode) -> "Loop":
        counters: set[str] = set()
        header = node.for_in if hasattr(node, "for_in") else node  # a comprehension: its (first) `for`
        changed = set()
        if isinstance(header, (cst.For, cst.CompFor)) and not _few_constants(header.iter):
            counters |= _counter_targets(header.target, header.iter)
            changed |= {n.value for n in walk(header.target) if isinstance(n, cst.Name)}
        body = node.body if isinstance(node, (cst.For, cst.While)) else node
        changed |= set(assigned_names([body]))
        growing: set[str] = set()
        accumulating: set[str] = set()
        others: set[str] = set()
        for statement in _statements(body):
            found = _accumulators(statement)
            accumulating |= found
            if not found:
                others |= set(assigned_names([statement]))
            growing |= _grown(statement)
        counters |= accumulating - others  # `k = 1.0; k = k + 0.5` restarts every iteration: not a counter
        sometimes = (accumulating - others) - _unconditional_accumulators(body)
        return cls(node, frozenset(counters), frozenset(changed - counters), frozenset(growing), _single_values(body),
                   frozenset(sometimes))

    def without(self, names: frozenset[str] | set[str]) -> "Loop":
        """This loop, blind to `names` (what inner loops assign: judged per inner loop)."""
        return replace(self, counters=self.counters - names, changed=self.changed - names, growing=self.growing - names,
                       values=tuple((n, v) for n, v in self.values if n not in names), sometimes=self.sometimes - names)

    def value_of(self, name: str) -> cst.BaseExpression | None:
        return next((value for n, value in self.values if n == name), None)

    # -- what one expression does across iterations ---------------------------------------------
    def key(self, expr: cst.BaseExpression) -> str:
        """STABLE, VARIES (may repeat) or NEW_EACH_TIME (never repeats: a counter, a fresh value)."""
        if isinstance(expr, cst.Name):
            if expr.value in self.counters:
                return NEW_EACH_TIME
            value = self.value_of(expr.value)
            if value is not None:
                return self.key(value)
            return VARIES if expr.value in self.changed else STABLE
        if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
            return STABLE
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            return self.key(expr.expression)
        if isinstance(expr, cst.BinaryOperation):
            left, right = self.key(expr.left), self.key(expr.right)
            if VARIES in (left, right) or not isinstance(expr.operator, _MONOTONE):
                return VARIES if self._reads_changing(expr) else STABLE
            return NEW_EACH_TIME if NEW_EACH_TIME in (left, right) and STABLE in (left, right) else left
        if isinstance(expr, cst.FormattedString):
            keys = [self.key(p.expression) for p in expr.parts if isinstance(p, cst.FormattedStringExpression)]
            return VARIES if VARIES in keys else NEW_EACH_TIME if NEW_EACH_TIME in keys else STABLE
        if isinstance(expr, cst.Call) and last_name(expr.func) in _CONVERSIONS and len(expr.args) >= 1:
            return self.key(expr.args[0].value)
        return VARIES if self._reads_changing(expr) else STABLE

    def every_iteration(self, expr: cst.BaseExpression) -> bool:
        """Whether a key that never repeats changes on every iteration, not only on some (a counter
        updated under a condition)."""
        if isinstance(expr, cst.Name) and expr.value not in self.counters and self.value_of(expr.value) is not None:
            return self.every_iteration(self.value_of(expr.value))
        read = read_names(expr)
        return bool(read & (self.counters - self.sometimes)) or not read & self.sometimes

    def _reads_changing(self, expr: cst.CSTNode) -> bool:
        return bool(read_names(expr) & (self.counters | self.changed))

    def grows(self, expr: cst.BaseExpression) -> cst.CSTNode | None:
        """The part of `expr` whose shape changes every iteration (never repeating), if any."""
        if isinstance(expr, cst.Name) and expr.value in self.growing:
            return expr
        if isinstance(expr, cst.Name) and self.value_of(expr.value) is not None:
            return self.grows(self.value_of(expr.value))
        for node in walk(expr):
            if isinstance(node, cst.Call) and last_name(node.func) in SHAPE_BUILDERS:
                if any(self.key(a.value) == NEW_EACH_TIME for a in node.args):
                    return node
            if isinstance(node, cst.Slice) and any(
                    part is not None and self.key(part) == NEW_EACH_TIME for part in (node.lower, node.upper)) \
                    and not self.fixed_window(node):
                return node
        return None

    def fixed_window(self, node: cst.Slice) -> bool:
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

    def new_function(self, expr: cst.BaseExpression) -> bool:
        """A function object created anew on every iteration: a lambda, or a def in the loop body."""
        if isinstance(expr, cst.Lambda):
            return True
        if isinstance(expr, cst.Call) and last_name(expr.func) == "partial":
            return any(self.new_function(a.value) or self.key(a.value) != STABLE for a in expr.args)
        return isinstance(expr, cst.Name) and expr.value in self.changed and expr.value in _defined_functions(self.node)


_INTEGER_OPERATORS = {cst.Add: lambda a, b: a + b, cst.Subtract: lambda a, b: a - b, cst.Multiply: lambda a, b: a * b,
                      cst.FloorDivide: lambda a, b: a // b if b else None}


def _integer_value(expr: cst.BaseExpression, values: dict[str, int]) -> int | None:
    """The value of integer arithmetic over names (given values) and literals; None for anything else."""
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.Name):
        return values.get(expr.value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = _integer_value(expr.expression, values)
        return None if inner is None else -inner
    if isinstance(expr, cst.BinaryOperation) and type(expr.operator) in _INTEGER_OPERATORS:
        left, right = _integer_value(expr.left, values), _integer_value(expr.right, values)
        if left is None or right is None:
            return None
        return _INTEGER_OPERATORS[type(expr.operator)](left, right)
    return None


def bound_names(loop: cst.CSTNode) -> set[str]:
    """Every name a loop binds: its target and what its body assigns, constant or not."""
    header = loop.for_in if hasattr(loop, "for_in") else loop
    out = {n.value for n in walk(header.target) if isinstance(n, cst.Name)} if isinstance(header, (cst.For, cst.CompFor)) else set()
    return out | set(assigned_names([loop.body if isinstance(loop, (cst.For, cst.While)) else loop]))


def bound_names_in(statement: cst.CSTNode) -> set[str]:
    """Names a statement binds anywhere in it: assignments, and the targets of the loops in it."""
    out = set(assigned_names([statement]))
    for node in walk(statement):
        if isinstance(node, (cst.For, cst.CompFor)):
            out |= {n.value for n in walk(node.target) if isinstance(n, cst.Name)}
    return out


def walk(node: cst.CSTNode):
    """Every node under `node`, itself included."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def _statements(body: cst.CSTNode):
    """Statements of a loop body, not looking into nested functions or classes."""
    for node in walk(body):
        if type(node) is cst.Assign or type(node) is cst.AugAssign:  # (exact: cst_tree.concrete)
            yield node


def _single_values(body: cst.CSTNode) -> tuple[tuple[str, cst.BaseExpression], ...]:
    """`name = value` for names assigned once in the loop body, whose value does not read them."""
    seen: dict[str, cst.BaseExpression | None] = {}
    for statement in _statements(body):
        targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
        for target in targets:
            for name in (n.value for n in walk(target) if isinstance(n, cst.Name)):
                simple = isinstance(statement, cst.Assign) and len(targets) == 1 and isinstance(target, cst.Name)
                seen[name] = statement.value if simple and name not in seen else None
    return tuple((name, value) for name, value in seen.items() if value is not None and name not in read_names(value))


def read_names(expr: cst.CSTNode) -> set[str]:
    """Names an expression reads (not keyword names of arguments, not attribute names)."""
    out: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.add(node.value)
        elif isinstance(node, cst.Arg):
            stack.append(node.value)
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        else:
            stack.extend(children(node))
    return out


def _counter_targets(target: cst.BaseAssignTargetExpression, iterable: cst.BaseExpression) -> set[str]:
    """`for i in range(...)` and `for i, x in enumerate(...)`: `i` takes a new value every iteration."""
    if isinstance(iterable, cst.Call) and last_name(iterable.func) == "range" and isinstance(target, cst.Name):
        return {target.value}
    if isinstance(iterable, cst.Call) and last_name(iterable.func) == "enumerate" and isinstance(target, cst.Tuple) \
            and target.elements and isinstance(target.elements[0].value, cst.Name):
        return {target.elements[0].value.value}
    return set()


def _few_constants(iterable: cst.BaseExpression) -> bool:
    """`for mode in ("a", "b")`: a few values written out, traced once each and then served by the cache."""
    return isinstance(iterable, (cst.Tuple, cst.List, cst.Set)) and all(
        isinstance(e.value, (cst.Integer, cst.Float, cst.SimpleString, cst.Name)) for e in iterable.elements)


def _accumulators(statement: cst.CSTNode) -> set[str]:
    """`t += dt`, `n = n + 1`: a value that only moves one way (when the step is a constant)."""
    if isinstance(statement, cst.AugAssign) and isinstance(statement.target, cst.Name) \
            and isinstance(statement.operator, (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign)) \
            and not isinstance(statement.value, (cst.Call, cst.Subscript)):
        return {statement.target.value}
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0].target, cst.Name):
        name = statement.targets[0].target.value
        value = statement.value
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract)) \
                and isinstance(value.left, cst.Name) and value.left.value == name \
                and isinstance(value.right, (cst.Integer, cst.Float, cst.Name)):
            return {name}
    return set()


def _unconditional_accumulators(body: cst.CSTNode) -> set[str]:
    """Accumulators updated by a statement of the body that runs on every iteration: one not inside
    an `if`, `try` or nested loop of the body (nor in a nested function or class)."""
    out: set[str] = set()
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.If, cst.Try, cst.TryStar, cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Match)):
            continue
        if type(node) is cst.Assign or type(node) is cst.AugAssign:
            out |= _accumulators(node)
        stack.extend(children(node))
    return out


def _grown(statement: cst.CSTNode) -> set[str]:
    """`x = math.concat([x, y], 'x')`: `x` is longer after every iteration."""
    if not isinstance(statement, cst.Assign) or len(statement.targets) != 1 or not isinstance(statement.targets[0].target, cst.Name):
        return set()
    name = statement.targets[0].target.value
    value = statement.value
    if isinstance(value, cst.Call) and last_name(value.func) in GROWERS and value.args:
        if any(isinstance(n, cst.Name) and n.value == name for n in walk(value.args[0].value)):
            return {name}
    return set()


def _defined_functions(loop: cst.CSTNode) -> set[str]:
    out = set()
    for node in walk(loop):
        if isinstance(node, cst.FunctionDef):
            out.add(node.name.value)
        elif isinstance(node, cst.Assign) and isinstance(node.value, cst.Lambda):
            out.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
    return out
