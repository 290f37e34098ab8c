"""Statements a fix inserts, spaced like the code around them."""
from __future__ import annotations

from ..lazy_libcst import cst


def assign(name: str, value: cst.BaseExpression, before: cst.BaseStatement | None = None) -> cst.SimpleStatementLine:
    """`name = value`, spaced like the statement it will be inserted before (its blank lines, not its comments)."""
    blank = []
    for line in getattr(before, "leading_lines", ()):
        if line.comment is not None:
            break
        blank.append(line)
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)], leading_lines=blank)
