"""`phiml-rewrite explain-trace FILE:LINE`: why a condition or trip count is considered traced.

Users must be able to trust that static control flow is never touched. This prints, for every
`if` / `while` condition, conditional expression and `for` trip count on the line, what the
traced-value analysis concluded (static, traced or unknown) and the derivation: which parameter of
which jit-compiled function it comes from, through which assignments and operations.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .lazy_libcst import cst

from .cst_tree import children, scope_kinds
from .analysis.module import ModuleAnalysis


@dataclass(frozen=True)
class Explanation:
    line: int
    column: int
    what: str  # "if condition" | "while condition" | "conditional expression" | "for trip count"
    code: str
    verdict: str  # "static" | "traced" | "unknown"
    why: str
    function: str
    transform: str

    def text(self) -> str:
        return (f"{self.line}:{self.column} {self.what} `{self.code}` in `{self.function}` ({self.transform}): "
                f"{self.verdict.upper()} - {self.why}")


def explain_trace(source: str, line: int, line_label: Callable[[int], str] | None = None,
                  world=None) -> tuple[list[Explanation], str | None]:
    """The explanations for `line`, and a note when there is nothing to explain there. `line_label`
    names lines in derivations (`cell 3, line 4` in a notebook's joined cells); `world`: the file's
    (project.world.World: the package its relative imports start from)."""
    wrapper = cst.MetadataWrapper(cst.parse_module(source))
    analysis = ModuleAnalysis(wrapper, world=world)
    if line_label is not None:
        analysis.names.line_label = line_label
    positions = analysis.names.positions
    out: list[Explanation] = []
    enclosing = None
    for flow in analysis.traced.flows.values():
        fn = flow.context.function
        span = positions[fn]
        if span.start.line <= line <= span.end.line and (enclosing is None or positions[enclosing.context.function].start.line < span.start.line):
            enclosing = flow
        stack = [fn.body]
        while stack:
            node = stack.pop()
            stack.extend(c for c in children(node) if type(c) not in scope_kinds())
            test, what = _tested(node)
            if test is None or positions[test].start.line != line:
                continue
            value = flow.value_of(test)
            if value is None:
                continue
            start = positions[test].start
            verdict = "static" if value.static else "traced" if value.traced else "unknown"
            why = value.explain() if not value.static else "computed only from static values (shapes, static arguments, constants, None checks)"
            out.append(Explanation(start.line, start.column + 1, what, wrapper.module.code_for_node(test).strip(), verdict, why,
                                   flow.context.name, f"{flow.context.transform.api.name}, {flow.context.how}"))
    out.sort(key=lambda e: (e.line, e.column))
    if out:
        return out, None
    if enclosing is None:
        return [], (f"line {line} is not inside a jit-compiled function or a helper called from one: "
                    "Python control flow there runs eagerly")
    params = ", ".join(f"`{name}` {'static' if v.static else 'traced' if v.traced else 'unknown'}"
                       for name, v in enclosing.params.items()) or "none"
    return [], (f"line {line} has no condition or trip count; it is inside `{enclosing.context.name}` "
                f"({enclosing.context.transform.api.name}), whose parameters are: {params}")


def _tested(node: cst.CSTNode) -> tuple[cst.CSTNode | None, str]:
    if isinstance(node, cst.If):
        return node.test, "if condition"
    if isinstance(node, cst.While):
        return node.test, "while condition"
    if isinstance(node, cst.IfExp):
        return node.test, "conditional expression"
    if isinstance(node, cst.For):
        return node.iter, "for trip count"
    return None, ""
