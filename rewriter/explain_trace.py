"""`phiml-rewrite explain-trace FILE:LINE`: why a condition or trip count is considered traced.

Users must be able to trust that static control flow is never touched. This prints, for every
`if` / `while` condition, conditional expression and `for` trip count on the line, what the
traced-value analysis concluded (static, traced or unknown) and the derivation: which parameter of
which jit-compiled function it comes from, through which assignments and operations.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable

from .analysis.ast_names import own_nodes_in_order


@dataclass(frozen=True)
class Explanation:
    """Why one condition or trip count is traced, static or unknown: what `explain-trace` prints."""
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
    (project.world.World: the package its relative imports start from). Read on `ast`, as the rules read
    it (a newer grammar lowered); raises engine.ProcessingError where nothing reads it."""
    from .engine import _ast_file
    from .settings import Settings

    file, _ = _ast_file(source.encode(), "<explained>", Settings(codemods=(), world=world))
    if line_label is not None:
        file.line_label = line_label  # type: ignore[method-assign]
    try:
        return _explained(file, line)
    finally:
        file.release()


def _explained(file, line: int) -> tuple[list[Explanation], str | None]:
    out: list[Explanation] = []
    enclosing = None
    if file.reading is None or file.reading.tree is None:
        return [], f"line {line} cannot be read: the file's grammar is newer than this Python reads"
    for flow in file.traced.flows.values():
        fn = flow.context.function
        if fn.lineno <= line <= fn.end_lineno and (enclosing is None or enclosing.context.function.lineno < fn.lineno):
            enclosing = flow
        for node in own_nodes_in_order(fn):
            test, what = _tested(node)
            if test is None:
                continue
            (start_line, start_column), _ = file.parenthesized_span(test)
            if start_line != line:
                continue
            value = flow.value_of(test)
            if value is None:
                continue
            verdict = "static" if value.static else "traced" if value.traced else "unknown"
            why = value.explain() if not value.static else "computed only from static values (shapes, static arguments, constants, None checks)"
            out.append(Explanation(start_line, start_column + 1, what, file.code_parenthesized(test).strip(), verdict, why,
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


def _tested(node: ast.AST) -> tuple[ast.expr | None, str]:
    if isinstance(node, ast.If):
        return node.test, "if condition"
    if isinstance(node, ast.While):
        return node.test, "while condition"
    if isinstance(node, ast.IfExp):
        return node.test, "conditional expression"
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return node.iter, "for trip count"
    return None, ""
