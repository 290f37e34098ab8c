"""The original function with each `if` forced: every branch path it can take, run one at a time.

Under an abstract trace a traced condition has no value, so the original fails where the program
(eager) picks a branch. `forced` compiles, in the worker only, a copy of the function from its
module's source in which every `if` statement and conditional expression asks a probe for its
outcome: a condition with a value (a Python number, a static shape) keeps it; a traced one gets
the outcome the path prescribes (each operand of `and`, `or`, `not` is asked on its own). `paths` explores the tree of traced outcomes depth first: a nested
`if` or an `elif` is a decision only on the paths that reach it, and an early `return` ends a path.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable

PROBE = "__phiml_rewrite_branch__"
JIT_DECORATORS = {"jit", "jit_compile", "jit_compile_linear", "filter_jit"}  # removed: the original runs eagerly


class NotForcible(Exception):
    """The function cannot be copied faithfully (another decorator, not found): no proof."""


def _function(tree: ast.Module, name: str) -> ast.FunctionDef:
    found = None
    for stmt in tree.body:  # the last definition is the one the module keeps
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            found = stmt
    if found is None or isinstance(found, ast.AsyncFunctionDef):
        raise NotForcible(f"`{name}` is not a module-level function")
    return found


def _decorator_name(node: ast.expr) -> str:
    """`jax.jit` -> jit; `functools.partial(jax.jit, static_argnames=...)` -> jit; `jit(...)` -> jit."""
    if isinstance(node, ast.Call):
        func = node.func
        head = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if head == "partial" and node.args:
            return _decorator_name(node.args[0])
        return _decorator_name(func)
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


class _Force(ast.NodeTransformer):
    def __init__(self):
        self.lines: list[int] = []

    def _probe(self, test: ast.expr, line: int | None = None) -> ast.expr:
        """`a and b`, `a or b`, `not a`: each operand is a condition of its own (its truth is asked for)."""
        line = test.lineno if line is None else line
        if isinstance(test, ast.BoolOp):
            test.values = [self._probe(v, line) for v in test.values]
            return test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test.operand = self._probe(test.operand, line)
            return test
        self.lines.append(line)
        call = ast.Call(ast.Name(PROBE, ast.Load()), [ast.Constant(line), test], [])
        return ast.copy_location(call, test)

    def visit_If(self, node: ast.If) -> ast.If:
        self.generic_visit(node)
        node.test = self._probe(node.test)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.IfExp:
        self.generic_visit(node)
        node.test = self._probe(node.test)
        return node


@dataclass
class Forced:
    """A copy of a function whose `if`s ask a probe, so that synthesized inputs can reach each branch."""
    make: Callable  # make(probe) -> the function, with its `if`s asking `probe(line, condition)`
    lines: list[int]  # the lines of the `if`s forced


def forced(source: str, name: str, filename: str, globals_: dict) -> Forced:
    """A copy of module-level `name` (from the module `source`) whose `if`s ask a probe; jit decorators
    removed, annotations dropped (they may name what only a type checker imports); its globals are the
    module's, and the module itself is left untouched."""
    function = _function(ast.parse(source), name)
    others = [d for d in function.decorator_list if _decorator_name(d) not in JIT_DECORATORS]
    if others:
        raise NotForcible(f"a decorator other than jit (`{ast.unparse(others[0])}`)")
    function.decorator_list = []
    function.returns = None
    args = function.args
    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    force = _Force()
    function = force.visit(function)
    maker = ast.FunctionDef(
        name="__phiml_rewrite_forced__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(PROBE)], vararg=None, kwonlyargs=[], kw_defaults=[],
                           kwarg=None, defaults=[]),
        body=[function, ast.Return(ast.Name(name, ast.Load()))], decorator_list=[], returns=None)
    module = ast.fix_missing_locations(ast.Module([ast.copy_location(maker, function)], type_ignores=[]))
    namespace: dict = {}
    exec(compile(module, filename, "exec"), globals_, namespace)  # binds the maker in `namespace`, not the module
    return Forced(namespace["__phiml_rewrite_forced__"], force.lines)


def concrete(value) -> bool | None:
    """The condition's outcome when it has one; None when it is traced (jax raises a ConcretizationTypeError
    on `bool` of a tracer, also inside a PhiML tensor; PhiML refuses `bool` of a traced scalar tensor)."""
    try:
        return bool(value)
    except Exception as e:
        if any(c.__name__ == "ConcretizationTypeError" for c in type(e).__mro__) or _traced_phiml_scalar(value):
            return None
        raise


def _traced_phiml_scalar(value) -> bool:
    if not type(value).__module__.startswith("phiml") or getattr(getattr(value, "shape", None), "rank", None) != 0:
        return False
    import jax

    try:
        return isinstance(value.native(), jax.core.Tracer)
    except Exception:
        return False


@dataclass
class Probe:
    """Prescribed outcomes for the first traced conditions met; later ones are True, and recorded."""
    prescribed: tuple[bool, ...]
    decide: Callable[[object], bool | None] = concrete
    taken: list[tuple[int, bool]] = field(default_factory=list)  # (line, outcome) per traced condition met

    def __call__(self, line: int, condition) -> bool:
        outcome = self.decide(condition)
        if outcome is not None:
            return outcome
        i = len(self.taken)
        outcome = self.prescribed[i] if i < len(self.prescribed) else True
        self.taken.append((line, outcome))
        return outcome


class TooManyPaths(Exception):
    pass


def paths(run: Callable[[Probe], object], decide: Callable[[object], bool | None] = concrete,
          limit: int = 32) -> list[tuple[tuple[tuple[int, bool], ...], object]]:
    """Every path of traced outcomes, each with what `run(probe)` returned on it (depth first)."""
    out: list[tuple[tuple[tuple[int, bool], ...], object]] = []
    todo: list[tuple[bool, ...]] = [()]
    while todo:
        prescribed = todo.pop()
        if len(out) >= limit:
            raise TooManyPaths(f"more than {limit} branch paths")
        probe = Probe(prescribed, decide)
        result = run(probe)
        taken = tuple(probe.taken)
        out.append((taken, result))
        outcomes = tuple(o for _, o in taken)
        for i in range(len(taken) - 1, len(prescribed) - 1, -1):
            todo.append(outcomes[:i] + (not outcomes[i],))
    return out


def label(taken: tuple[tuple[int, bool], ...]) -> str:
    """`branch True` for one traced `if`; `branch True/False` for the operands of its `and`; `line 12 True,
    line 15 False` for several `if`s; `the path without a traced branch`."""
    if not taken:
        return "the path without a traced branch"
    groups: list[tuple[int, list[bool]]] = []
    for line, outcome in taken:
        if groups and groups[-1][0] == line:
            groups[-1][1].append(outcome)
        else:
            groups.append((line, [outcome]))
    shown = [(line, "/".join(map(str, outcomes))) for line, outcomes in groups]
    if len(shown) == 1:
        return f"branch {shown[0][1]}"
    return ", ".join(f"line {line} {outcomes}" for line, outcomes in shown)
