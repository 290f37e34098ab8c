"""A notebook's code cells joined into one module, and a module split back into cells.

Every rule must see the whole notebook: a `@jit_compile` def in cell 3 and the loop that calls it in
cell 7 are one program. So the analysed module is the code cells in order, each after a marker
comment line that names it. The engine keeps the markers where they are (an insertion before a
cell's first statement goes below its marker: rewriter/boundaries.py), so lifted and hoisted code
lands in the cell whose statement needs it, and the rewritten module splits back at the markers.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ..analysis.ast_names import parse
from ..boundaries import CELL_MARKER, LineMap, cell_of_marker, python_lines  # noqa: F401  (LineMap: re-exported)


@dataclass(frozen=True)
class Joined:
    """The module of some cells: `cells` are their 1-based indices in the notebook, in order."""

    source: str
    cells: tuple[int, ...]
    newline_at_end: tuple[bool, ...]  # whether each cell's text ended with a line break


def has_marker(code: str) -> bool:
    """Whether a cell's own code holds a line that reads as a cell marker (it could not be split back)."""
    return any(cell_of_marker(line) is not None for line in python_lines(code))


def join(cells: list[tuple[int, str]]) -> Joined:
    """One module of `(index, code)` pairs; every cell ends with a line break in the module."""
    parts, ends = [], []
    for index, code in cells:
        parts.append(CELL_MARKER.format(index) + "\n")
        ends.append(code.endswith(("\n", "\r")))
        parts.append(code if ends[-1] or not code else code + "\n")
    return Joined("".join(parts), tuple(index for index, _ in cells), tuple(ends))


def split(source: str, joined: Joined) -> dict[int, str] | None:
    """Each cell's code in a (rewritten) module of `joined`; None if its markers are not all there,
    once each and in order. Code above the first marker (an import added at the top) is the first
    cell's."""
    texts: list[list[str]] = [[]]
    seen: list[int] = []
    for line in python_lines(source):
        index = cell_of_marker(line)
        if index is None:
            texts[-1].append(line)
        else:
            seen.append(index)
            texts.append([])
    if tuple(seen) != joined.cells:
        return None
    head = texts.pop(0)
    if texts:
        texts[0] = head + texts[0]
    out = {}
    for index, lines, had_end in zip(joined.cells, texts, joined.newline_at_end):
        text = "".join(lines)
        if not had_end:  # what the join added, and blank lines a rewrite put at the end (after an import)
            text = text.rstrip("\r\n")
        out[index] = text
    return out


def added_imports_to_the_imports_cell(after: dict[int, str], before: dict[int, str],
                                      scoped: frozenset[int] = frozenset()) -> dict[int, str]:
    """`after` (each cell's code once the module is rewritten and split) with the imports the rewrite
    added at the top of the first cell moved to the cell that holds the notebook's imports. The engine
    adds an import where a module starts when its first statement is not one (libcst's
    AddImportsVisitor), which in a notebook is the first code cell: often `%pip install ...`, which a
    reader skips once the packages are there. They go to the first cell holding a module-level import,
    unless a cell the rewrite changed comes earlier (then that one): every name an added import binds
    is read by new code, in a changed cell, so either place runs before it. Left where they are when
    the first cell holds imports itself, when the rewrite changed more of it, and before a
    `from __future__` import (which must come first in its cell). `scoped`: the cells whose body runs
    inside a function (`%%timeit`: magics.Masked.scoped), where an import binds nothing for the others:
    never the target; left where it was when the first changed cell is one. Either way the added lines
    end as the lines of their cell do (a CRLF cell stays CRLF)."""
    first = next(iter(after), None)
    if first is None:
        return after
    old, new = before[first], after[first]
    if new == old or not new.endswith(old):
        return after
    added = new[: len(new) - len(old)]
    if not _only_imports(added):
        return after
    in_place = {**after, first: _with_newlines_of(old, added) + old}
    if _imports(old) and first not in scoped:
        return in_place
    out = {**after, first: old}
    target = first
    for index, text in out.items():
        if text != before[index]:  # the first changed cell: the new names are read from here on
            target = first if index in scoped else index
            break
        if index not in scoped and _imports(text):
            target = index
            break
    if target == first or _future_import(out[target]):
        return in_place
    out[target] = _with_newlines_of(out[target], added) + out[target]
    return out


def _with_newlines_of(cell: str, added: str) -> str:
    """`added` (whole lines) ending its lines as `cell`'s first line ends (unchanged if it has none):
    the module the rewrite wrote joins the cells with `\\n`, whatever a cell's own lines end with."""
    end = cell.find("\n")
    if end < 0:
        return added
    newline = "\r\n" if cell[end - 1: end] == "\r" else "\n"
    return added.replace("\r\n", "\n").replace("\n", newline)


def _statements(code: str) -> list[ast.stmt] | None:
    tree = parse(code)
    return tree.body if tree is not None else None


_IMPORTS = (ast.Import, ast.ImportFrom)


def _imports(code: str) -> bool:
    """The code holds a module-level import (False when it does not parse alone)."""
    return any(type(s) in _IMPORTS for s in _statements(code) or ())


def _future_import(code: str) -> bool:
    return any(type(s) is ast.ImportFrom and s.module == "__future__" for s in _statements(code) or ())


def _only_imports(code: str) -> bool:
    statements = _statements(code)
    if not statements:
        return False
    return all(type(s) in _IMPORTS for s in statements)
