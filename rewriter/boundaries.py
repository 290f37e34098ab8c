"""Cell boundaries in a module joined from notebook cells (rewriter/notebooks/cells.py).

Below the engine and the rules, which name lines by cell and place findings in cells; the
notebooks package, which joins and splits the cells, sits above the engine.

A boundary is a comment line of its own; the engine needs to know one when it inserts statements
before a cell's first statement: libcst keeps the comment in that statement's leading lines, so
the insertion would land above the marker, in the cell before. `split_leading_lines` moves the
marker (and what precedes it) onto the inserted code, which keeps it in the cell that needs it.
A Colab form header right below the marker (`#@title ...`, `#@markdown ...`) moves with it: Colab
reads a form's title only from a cell's first line, so code inserted above it would hide the form.
"""
from __future__ import annotations

import io
from bisect import bisect_right
from dataclasses import replace
from typing import Sequence

from .lazy_libcst import cst

from .findings import Finding, Related, Span

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
    """(the lines up to and including the last cell marker and the cell's Colab form header, the
    rest); ((), lines) without a marker."""
    last = None
    for i, line in enumerate(lines):
        if line.comment is not None and not line.whitespace.value and cell_of_marker(line.comment.value) is not None:
            last = i
    if last is None:
        return (), lines
    while last + 1 < len(lines) and lines[last + 1].comment is not None and is_colab_form_header(lines[last + 1].comment.value):
        last += 1
    return lines[:last + 1], lines[last + 1:]


COLAB_FORM_HEADERS = ("@title", "@markdown")


def is_colab_form_header(comment: str) -> bool:
    """`#@title Setup`, `# @title ...`, `#@markdown text`: a line Colab shows as the cell's form."""
    text = comment.lstrip("#").lstrip()
    return any(text == h or text.startswith(h) and not (text[len(h)].isalnum() or text[len(h)] == "_")
               for h in COLAB_FORM_HEADERS)


def python_lines(text: str, keepends: bool = True) -> list[str]:
    """Lines as Python and IPython count them: broken at `\\n`, `\\r\\n` and `\\r` only.

    `str.splitlines` also breaks at form feeds, `\\x1c`-`\\x1e`, `\\x85`, `\\u2028` and `\\u2029`,
    which may stand in a string or comment of a cell; counting them would put masks and positions
    on the wrong lines."""
    lines = io.StringIO(text, newline="").readlines()
    return lines if keepends else [line.rstrip("\r\n") for line in lines]


class LineMap:
    """Lines of a joined module -> (cell index, line in the cell), both 1-based."""

    def __init__(self, source: str) -> None:
        self.markers: list[int] = []  # line of each marker
        self.cells: list[int] = []
        for number, line in enumerate(python_lines(source), 1):
            index = cell_of_marker(line)
            if index is not None:
                self.markers.append(number)
                self.cells.append(index)

    def cell_line(self, line: int) -> tuple[int, int]:
        if not self.markers:
            return 1, line
        k = bisect_right(self.markers, line) - 1
        if k < 0:  # above the first marker: the first cell's (an import added at the top)
            return self.cells[0], 1
        return self.cells[k], max(1, line - self.markers[k])

    def line_of(self, cell: int, line: int) -> int | None:
        """The module's line for a cell's line (None: that cell is not in the module)."""
        if cell not in self.cells:
            return None
        return self.markers[self.cells.index(cell)] + line

    def label(self, line: int) -> str:
        cell, in_cell = self.cell_line(line)
        return f"cell {cell}, line {in_cell}"

    def in_cell(self, span: Span) -> tuple[int, Span]:
        """A span of this module as (its cell, the span in that cell); a span that runs into the
        next cell ends on its first line."""
        cell, line = self.cell_line(span.line)
        end_cell, end_line = self.cell_line(span.end_line)
        return cell, Span(line, span.column, end_line if end_cell == cell else line, span.end_column)

    def place(self, finding: Finding) -> None:
        """Give a finding of this module its cell, and its span in that cell (its related places too)."""
        finding.cell, finding.span = self.in_cell(finding.span)
        finding.related = tuple(self.place_related(r) for r in finding.related)

    def place_related(self, related: Related) -> Related:
        if related.path is not None or related.cell is not None:
            return related  # another file's, or placed already
        cell, span = self.in_cell(related.span)
        return replace(related, span=span, cell=cell)
