"""The diff of a notebook: one patch per changed code cell, labelled with the cell, as Ruff shows it.

A diff of the JSON text would show escaped strings in a file nobody reads as text; a diff of the
cells' code is what the user reviews. It is for reading: `git apply` cannot apply it.
"""
from __future__ import annotations

import difflib
import json

from .reading import source_text


def cell_diffs(path: str, old: bytes, new: bytes) -> str:
    old_cells, new_cells = _code_cells(old), _code_cells(new)
    shown = path.replace("\\", "/").lstrip("/")
    out = []
    for position, (index, before) in enumerate(old_cells):
        after = new_cells[position][1] if position < len(new_cells) else before
        if after == before:
            continue
        for line in difflib.unified_diff(_lines(before), _lines(after), f"a/{shown}:cell {index}", f"b/{shown}:cell {index}"):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of cell\n")
    return "".join(out)


def _code_cells(source: bytes) -> list[tuple[int, str]]:
    data = json.loads(source.decode("utf-8-sig"))
    return [(i + 1, source_text(c["source"])) for i, c in enumerate(data["cells"]) if c.get("cell_type") == "code"]


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)
