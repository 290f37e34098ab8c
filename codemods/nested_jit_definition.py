"""PML102 nested-jit-definition."""
from __future__ import annotations

import ast

from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_captures import captures, start
from rewriter.analysis.ast_jit import match_transform, spelled_transform
from rewriter.analysis.ast_names import branches
from rewriter.analysis.ast_structure import enclosing_function, top_level_statement
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import InsertBefore, Replace
from rewriter.findings import Safety
from rewriter.rule import Example, Unchanged, dedented

from ._ast_lift import eager_decorator, is_called
from ._auxiliary import auxiliary_editable, with_auxiliary
from ._lift import Temporary, comma, import_line, lifted_def, no_space_equal, rewrite_function_body

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class NestedJitDefinition(AstRule):
    """A function decorated with a jit transform inside another function is a new jit-compiled
    function every time the outer function runs, with an empty trace cache: every call of the outer
    function traces (and on jax compiles) it again — measured 6 calls, 6 traces. Defined at module
    level, it is traced once per input signature.

    The def is moved to module level under a name that says where it came from
    (`_simulate_step`), and the calls in the outer function use that name. A value it reads from
    the outer function would have to become an argument, which a jit traces (a Python number used
    as a shape or a loop bound would then fail): for a PhiML `jit_compile` the captured values
    become parameters named in `auxiliary_args` (static, one trace per distinct value, as each call
    of the outer function had) and the calls pass them — an unsafe fix; for other transforms the
    finding says which values to make parameters, listed in `static_argnames` where they must stay
    Python values. Decorators that act when the def runs (`torch.jit.script`) are never
    moved. Defs that leave the outer function (returned, stored, passed on: a jit factory) are not
    per-call work and are left alone; so are defs under a condition and defs inside a traced body
    (PML303 reports those).
    """

    CODE = "PML102"
    MOVES_CODE = True
    NAME = "nested-jit-definition"
    SUMMARY = "a jit-compiled def nested in a function re-traces on every call: it is lifted to module level"
    SAFETY = Safety.SAFE
    CHANGES_STRUCTURE = ("jit", "nested", "closure")
    FIX_SAFETY = (
        "Safe when the def captures nothing: the lifted function is the same code reading the same module "
        "globals, and its traces are now shared by all calls of the outer function, which is the point; its "
        "`__qualname__` changes. Unsafe when captured values become `auxiliary_args`: PhiML compares "
        "auxiliary values by equality and hashes them, so a captured Tensor or array would fail or re-trace."
    )
    EXAMPLES = (
        Example(
            dedented("""
                from phiml import math


                def simulate(u, steps):
                    @math.jit_compile
                    def step(u):
                        return u + 0.1 * math.laplace(u)

                    for _ in range(steps):
                        u = step(u)
                    return u
            """),
            dedented("""
                from phiml import math


                @math.jit_compile
                def _simulate_step(u):
                    return u + 0.1 * math.laplace(u)


                def simulate(u, steps):
                    for _ in range(steps):
                        u = _simulate_step(u)
                    return u
            """),
        ),
        Unchanged(dedented("""
            def make_step(dt):
                @jax.jit
                def step(x):
                    return x + dt
                return step
        """), "a jit factory: the def is returned"),
        Unchanged(dedented("""
            def simulate(u, smooth):
                if smooth:
                    @math.jit_compile
                    def step(u):
                        return u + 0.1 * math.laplace(u)
                    u = step(u)
                return u
        """), "a def under a condition"),
    )
    READS_FACTS = True
    TRIGGERS = (("jit",), ("function",), ("compile",))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A def with one jit decorator, a statement of the body of the def around it (not under a
        condition or in a loop), bound once there by name and only called there, and read somewhere:
        `_check`'s conditions on CPython's ast, each as a superset (reads in nested scopes may be of
        another binding: they count as reads, never as escapes)."""
        if not syntax.spells(Kind.JIT):
            return False
        facts = syntax.facts
        return facts is not None and any(
            functions and isinstance(functions[-1], (ast.FunctionDef, ast.AsyncFunctionDef))
            and _lifted_candidate(facts, node, functions[-1]) for node, functions in facts.nested_jit_defs)

    def check(self) -> None:
        file = self.file
        names = file.names
        defs = [node for node in file.nodes(*_DEFS)
                if any(spelled_transform(names, d) for d in node.decorator_list)]
        for node in sorted(defs, key=start):  # (libcst's order: the lifted names are handed out in it)
            self._check(node)

    def _check(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        file = self.file
        names = file.names
        transform = next((t for t in (match_transform(names, d, (Kind.JIT,)) for d in node.decorator_list) if t), None)
        outer = enclosing_function(names, node)
        if transform is None or type(outer) not in _DEFS:
            return
        if file.jit.enclosing_context(node) is not None:
            return  # inside a traced body: PML303
        if names.parent(node) is not outer or not any(statement is node for statement in outer.body):
            return  # defined under a condition or in a loop: where it exists is part of the logic
        name = node.name
        scope = names.scope(node)
        assignment = next((a for a in scope.assignments[name] if getattr(a, "node", None) is node), None) \
            if scope is not None else None
        if assignment is None or len(scope.assignments[name]) != 1:
            return
        references = list(assignment.references)
        escaping = [r for r in references if not is_called(names, r.node)]
        if escaping or not references:
            return  # returned, stored or passed on: a jit factory, not per-call work
        place = file.python.name_place(node)
        message = f"`{name}` is jit-compiled by `{transform.api.name}` inside `{outer.name}`: traced again on each call"
        eager = eager_decorator(file, node)
        if eager:
            self.report(node, message, note=f"not lifted: {eager}", place=place)
            return
        result = captures(names, node)
        if result.refusal is not None:
            self.report(node, message, note=f"not lifted: {result.refusal}", related=result.related, place=place)
            return
        captured = result.names
        if captured:
            values = ", ".join(f"`{n}`" for n in captured)
            static = "auxiliary_args" if transform.framework == "phiml" else "static_argnames"
            if transform.framework != "phiml" or not auxiliary_editable(file.reading, transform.expr):
                self.report(node, message, note=f"not lifted: it reads {values} from `{outer.name}`", place=place,
                            hint=(f"make {values} a parameter, listed in `{static}` if it must stay a Python value, "
                                  if len(captured) == 1 else
                                  f"make {values} parameters, listed in `{static}` where they must stay Python values, ")
                                 + "and move it to module level")
                return
            if node.args.defaults:
                self.report(node, message, place=place, note="not lifted: its captured values cannot follow a parameter "
                            "with a default value", hint=f"make {values} {'a parameter' if len(captured) == 1 else 'parameters'} by hand, "
                            "and move it to module level")
                return
        lifted_name = file.fresh_name(f"_{outer.name.lstrip('_') or 'function'}_{name}")
        anchor = top_level_statement(names, file.reading.lines, node)
        calls = [names.parent(r.node) for r in references]
        build = partial(_write_lift, lifted_name=lifted_name, captured=captured, calls=len(calls),
                        imports=tuple(i.name for i in result.imports), auxiliary=bool(captured))
        needs = (node, *((transform.expr,) if captured else ()), *calls, *(i.statement for i in result.imports))
        if captured:
            values = ", ".join(f"`{n}`" for n in captured)
            self.report(node, message, place=place, fix=PlannedFix(
                f"move it to module level as `{lifted_name}`, with {values} as auxiliary arguments "
                "(unsafe: auxiliary values must be hashable)", (anchor, outer), build, Safety.UNSAFE, needs=needs))
            return
        self.report(node, message, place=place,
                    fix=PlannedFix(f"move it to module level as `{lifted_name}`", (anchor, outer), build, needs=needs))


def _write_lift(context, anchor: cst.CSTNode, outer: cst.FunctionDef, node: cst.FunctionDef, *rest, lifted_name: str,
                captured: tuple[str, ...], calls: int, imports: tuple[str, ...], auxiliary: bool):
    """The def at module level as `lifted_name` (its decorator given `captured` as `auxiliary_args`), and
    `outer`'s body without it, calling it by that name with the captured values."""
    if auxiliary:
        expr, *rest = rest
        decorators = with_auxiliary(node, expr, captured)
        if decorators is None:
            return None
    else:
        decorators = list(node.decorators)
    call_twins, import_twins = rest[:calls], rest[calls:]
    temporary = Temporary(node.with_changes(decorators=decorators), f"`{node.name.value}`", lifted_name, node, ())
    lines = tuple(import_line(i, name) for i, name in zip(import_twins, imports))
    if any(line is None for line in lines):
        return None
    lifted = lifted_def(temporary, lifted_name, captured, anchor, lines)

    def renamed_call(updated: cst.Call) -> cst.Call:
        extra = [cst.Arg(cst.Name(c), keyword=cst.Name(c), equal=no_space_equal()) for c in captured]
        args = list(updated.args)
        if extra and args:
            args[-1] = args[-1].with_changes(comma=comma())
        return updated.with_changes(func=cst.Name(lifted_name), args=[*args, *extra])

    body = rewrite_function_body(outer, {id(call): renamed_call for call in call_twins}, node)
    return [InsertBefore(anchor, (lifted,)), Replace(outer.body, body)]


def _lifted_candidate(facts, node: ast.AST, outer: ast.AST) -> bool:
    """`node` is a statement of `outer`'s body, `outer`'s own scope binds its name once (a def, a class
    or an assignment's target), every read of the name there calls it, and the name is read somewhere
    in `outer`."""
    if not any(statement is node for statement in outer.body):
        return False
    name = node.name
    bindings = 0
    read = False
    stack: list[tuple[ast.AST, bool]] = [(statement, True) for statement in outer.body]
    while stack:
        current, own = stack.pop()
        kind = type(current)
        if kind is ast.Name:
            if current.id == name:
                if type(current.ctx) is ast.Store:
                    bindings += own
                elif type(current.ctx) is ast.Load:
                    read = True
                    if own and id(current) not in facts.called:
                        return False  # returned, stored or passed on: a jit factory
            continue
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            bindings += own and current.name == name
            # its decorators, defaults and bases are read in this scope; its body is a scope of its own
            outside = [*current.decorator_list, *(current.bases if kind is ast.ClassDef else
                                                  [*current.args.defaults, *current.args.kw_defaults])]
            stack.extend((child, own) for child in outside if child is not None)
            stack.extend((child, False) for child in current.body)
            continue
        if kind is ast.AnnAssign and current.value is None:
            stack.append((current.annotation, own))  # `step: T` alone binds nothing
            continue
        inner = kind in (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
        stack.extend((child, own and not inner) for child in branches(current))
    return bindings == 1 and read
