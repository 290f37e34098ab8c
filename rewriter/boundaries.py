"""Cell boundaries in a module joined from notebook cells (rewriter/notebooks/cells.py).

A boundary is a comment line of its own; the engine needs to know one when it inserts statements
before a cell's first statement: libcst keeps the comment in that statement's leading lines, so
the insertion would land above the marker, in the cell before. `split_leading_lines` moves the
marker (and what precedes it) onto the inserted code, which keeps it in the cell that needs it.
"""
from __future__ import annotations

from typing import Sequence

import libcst as cst

CELL_MARKER = "# phiml-rewrite: notebook cell {}"
_PREFIX, _SUFFIX = CELL_MARKER.split("{}")


def cell_of_marker(line: str) -> int | None:
    """The cell index a marker line names, or None for any other line."""
    text = line.rstrip("\r\n")
    if not text.startswith(_PREFIX) or not text.endswith(_SUFFIX):
        return None
    number = text[len(_PREFIX):len(text) - len(_SUFFIX) if _SUFFIX else None]
    return int(number) if number.isdigit() and number.isascii() else None


def split_leading_lines(lines: Sequence[cst.EmptyLine]) -> tuple[Sequence[cst.EmptyLine], Sequence[cst.EmptyLine]]:
    """(the lines up to and including the last cell marker, the rest); ((), lines) without a marker."""
    last = None
    for i, line in enumerate(lines):
        if line.comment is not None and not line.whitespace.value and cell_of_marker(line.comment.value) is not None:
            last = i
    if last is None:
        return (), lines
    return lines[:last + 1], lines[last + 1:]
