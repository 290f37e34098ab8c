"""A `.ipynb` file's bytes -> its code cells, or one clear reason why it cannot be used.

What is read is what Jupyter opens, not what nbformat's strict schema accepts: real notebooks carry
fields the schema of their minor version does not list (`execution_count` on a markdown cell, cell
`id`s in an nbformat 4.4 file, keys of other tools), and Jupyter opens them. Only the `source` of
code cells is ever edited, in the JSON text as read (rewriter/notebooks/json_edit.py), so every
other field is kept byte for byte, understood or not. Refused is only what leaves no code cells to
read: not JSON, not nbformat 4, no `cells` list, a cell without a type, a code cell without text.
An empty file (nothing, or only whitespace) is an empty notebook, as Jupyter opens it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

MAX_BYTES = 256 * 1024 * 1024  # outputs of this size are not a notebook to edit in place but an archive
PYTHON_LANGUAGES = ("python", "ipython", "python3")


class NotebookError(Exception):
    """A notebook that cannot be read; the message says why and what to do (the caller adds the path)."""


@dataclass(frozen=True)
class CodeCell:
    """One code cell of a notebook, numbered as an editor numbers it."""
    index: int  # 1-based position among all cells, as a notebook editor numbers them
    position: int  # 0-based position in the JSON `cells` array
    code: str
    shows_error: bool = False  # its stored outputs hold an error: it was run to show one (analysis/testcode.py)


@dataclass
class Notebook:
    """A notebook file as read: its JSON, and what writing it back must keep (its byte order mark)."""
    text: str  # the JSON text, after a byte order mark if there was one
    bom: bool
    data: dict
    language: str  # the kernel's language, "python" when the notebook does not say
    empty: bool = False  # the file holds nothing, or only whitespace
    cells: list[CodeCell] = field(default_factory=list)

    @property
    def is_python(self) -> bool:
        return self.language.lower() in PYTHON_LANGUAGES


def read(source: bytes) -> Notebook:
    if len(source) > MAX_BYTES:
        raise NotebookError(f"{len(source) / 2**20:.0f} MB, more than the {MAX_BYTES // 2**20} MB a notebook may have here "
                            "(its outputs: `jupyter nbconvert --clear-output` them, or check a copy without them)")
    bom = source.startswith(b"\xef\xbb\xbf")
    try:
        text = source[3:].decode("utf-8") if bom else source.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NotebookError(f"not UTF-8, as a notebook must be (byte {e.start})") from None
    if not text.strip():
        return Notebook(text, bom, {"cells": []}, "python", empty=True)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise NotebookError(f"invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise NotebookError("invalid notebook: JSON nested too deeply") from None
    if not isinstance(data, dict) or "nbformat" not in data:
        raise NotebookError("not a Jupyter notebook (no `nbformat` field)")
    major = data.get("nbformat")
    if major != 4:
        if isinstance(major, int) and major < 4:
            raise NotebookError(f"nbformat {major} notebook: only nbformat 4 is read "
                                "(convert it: `jupyter nbconvert --to notebook --nbformat 4 --inplace`)")
        raise NotebookError(f"nbformat {major!r} is not supported (only nbformat 4)")
    _structure(data)
    notebook = Notebook(text, bom, data, _language(data))
    for position, cell in enumerate(data["cells"]):
        if cell.get("cell_type") == "code":
            outputs = cell.get("outputs")
            error = isinstance(outputs, list) and any(isinstance(o, dict) and o.get("output_type") == "error" for o in outputs)
            notebook.cells.append(CodeCell(position + 1, position, source_text(cell["source"]), error))
    return notebook


def source_text(source: str | list[str]) -> str:
    """A multiline string as nbformat stores it (one string, or a list of lines) as one string."""
    return source if isinstance(source, str) else "".join(source)


def _language(data: dict) -> str:
    metadata = data.get("metadata")
    for key, field_name in (("kernelspec", "language"), ("language_info", "name")):
        section = metadata.get(key) if isinstance(metadata, dict) else None
        value = section.get(field_name) if isinstance(section, dict) else None  # a wrong shape says nothing
        if isinstance(value, str) and value:
            return value
    return "python"


def _structure(data: dict) -> None:
    """What reading and writing cells needs, whatever the schema says: else one line naming the cell."""
    cells = data.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("not a valid notebook: " + ("`cells` is not a list" if "cells" in data else "no `cells` list"))
    for position, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"not a valid notebook: cell {position} has no `cell_type`")
        source = cell.get("source")
        if cell["cell_type"] == "code" and "source" not in cell:
            raise NotebookError(f"not a valid notebook: code cell {position} has no `source`")
        if cell["cell_type"] == "code" and not (isinstance(source, str) or (
                isinstance(source, list) and all(isinstance(line, str) for line in source))):
            raise NotebookError(f"not a valid notebook: the `source` of cell {position} is neither text nor a list of lines")
        if cell["cell_type"] == "code":
            try:
                source_text(source).encode("utf-8")
            except UnicodeEncodeError as e:  # a lone surrogate, legal in JSON's `\ud800` escapes
                raise NotebookError(f"cell {position} holds a character that is not Unicode text "
                                    f"({source_text(source)[e.start]!r}, a lone surrogate)") from None
