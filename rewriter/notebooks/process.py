"""One notebook: read it, analyse its code cells as one module, write back the cells a fix changed.

The steps: read (reading.py); mask each code cell's IPython syntax (magics.py); leave
out cells that still do not parse, with a note naming them; join the rest into one module
(cells.py) and run the engine on it exactly as on a `.py` file; give every finding its cell and its
line in the cell; split the rewritten module at the cell markers, restore the IPython lines, and
replace only the changed cells' `source` in the JSON text (json_edit.py).
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Iterable

from .. import newer_syntax
from ..engine import Settings, process_source
from ..findings import FileResult
from . import cells as _cells
from . import json_edit, magics
from .reading import Notebook, NotebookError, read, source_text


def empty_note(source: bytes) -> str:
    """What a notebook file with nothing in it is (Jupyter opens it as a notebook without cells)."""
    held = "0 bytes" if not source else "only whitespace"
    return f"an empty notebook ({held}): nothing to check"


def process_notebook(source: bytes, path: str, settings: Settings) -> FileResult:
    """Like engine.process_source, for a `.ipynb` file's bytes. Never raises for bad input."""
    result = FileResult(path=path, old_source=source)
    try:
        notebook = read(source)
    except NotebookError as e:
        result.error = str(e)
        return result
    if notebook.empty:
        result.skipped = True
        result.notes.append(empty_note(source))
        return result
    if not notebook.is_python:
        result.skipped = True
        result.notes.append(f"kernel language is {notebook.language}, not Python: left alone")
        return result
    masked = _analysed(notebook, result.notes)
    if not masked:
        result.skipped = True
        return result
    joined = _cells.join([(index, m.text) for index, m in masked.items()])
    shown = frozenset(cell.index for cell in notebook.cells if cell.shows_error)
    # A fix fits back into the cells unless the rewrite moves an IPython line's placeholder (or the JSON
    # hides the cells): a report pass (`--check`) of a notebook with one that a fix may move computes the
    # rewrite to tell.
    masked_ipython = not all(m.top_level_lines for m in masked.values())
    inner = process_source(joined.source.encode("utf-8"), path, replace(settings, cells=True, error_cells=shown, masked_ipython=masked_ipython))
    result.skipped, result.notes, result.libcst_parsed = inner.skipped, result.notes + inner.notes, inner.libcst_parsed
    if inner.error:
        result.error = inner.error
        return result
    result.findings = inner.findings  # placed in their cells by the engine, each against its own pass's module
    if inner.new_source is None:  # a report pass, with no placeholder a fix may move
        if inner.would_change:
            _locate_cells(notebook, result)
        return result
    if not inner.changed:
        return result
    written = _rewrite(notebook, joined, masked, inner.new_source.decode("utf-8"))
    if isinstance(written, str):  # why the rewrite cannot be put back into the cells
        result.notes.append(written + "; the notebook is left unchanged")
        for finding in result.findings:
            finding.applied = False
        return result
    result.new_source = written
    return result


def analysed_cells(cells: Iterable[tuple[int, str]]) -> tuple[dict[int, magics.Masked], dict[int, str]]:
    """The code cells that are analysed, masked, by index; and why each other cell is left out.
    One answer for the CLI and the language server, so the editor sees the cells `check` sees."""
    masked: dict[int, magics.Masked] = {}
    left_out: dict[int, str] = {}
    for index, code in cells:
        m = magics.mask(code)
        if m is None:
            if magics.mentions_tag(code):
                left_out[index] = "holds the comment phiml-rewrite masks IPython lines with"
            continue  # a cell magic whose body is not Python (%%bash, %%writefile, ...): not Python, no note
        if _cells.has_marker(m.text):
            left_out[index] = "holds the comment phiml-rewrite marks cells with"
            continue
        try:
            newer_syntax.check(m.text)
        except SyntaxError as e:
            left_out[index] = f"syntax error at line {e.lineno}: {e.msg}"
            continue
        except (ValueError, RecursionError, MemoryError):
            left_out[index] = "cannot be parsed"
            continue
        masked[index] = m
    return masked, left_out


def _analysed(notebook: Notebook, notes: list[str]) -> dict[int, magics.Masked]:
    masked, left_out = analysed_cells((cell.index, cell.code) for cell in notebook.cells)
    notes += [f"cell {index}: {why}; this cell is left out" for index, why in left_out.items()]
    return masked


def module_of(source: bytes) -> tuple[str, list[str]]:
    """The module the rules see for a notebook's bytes, and the notes on cells left out; raises
    NotebookError. For commands that read a notebook as code (explain-trace)."""
    notes: list[str] = []
    masked = _analysed(read(source), notes)
    return _cells.join([(index, m.text) for index, m in masked.items()]).source, notes


def changed_cells(new_text: str, joined: _cells.Joined, masked: dict[int, magics.Masked]) -> dict[int, str] | str:
    """Cell index -> its new code, IPython lines restored, for each cell the rewritten module
    `new_text` changes; or why the rewrite cannot be put back into the cells."""
    texts = _cells.split(new_text, joined)
    if texts is None:
        return "the rewrite moved a cell boundary (a bug in phiml-rewrite: please report it)"
    texts = _cells.added_imports_to_the_imports_cell(texts, {index: m.text for index, m in masked.items()},
                                                     frozenset(index for index, m in masked.items() if m.scoped))
    changed: dict[int, str] = {}
    for index, text in texts.items():
        if text == masked[index].text:
            continue
        restored = magics.unmask(text, masked[index])
        if restored is None:
            return f"the rewrite of cell {index} moves its IPython syntax (magics, `!` commands)"
        changed[index] = restored
    return changed


def _locate_cells(notebook: Notebook, result: FileResult) -> None:
    """`result` of a report pass whose fixes would change `notebook`: it would change, unless its cells
    cannot be found in the JSON text to be written (then, as `_rewrite` says, no fix applies)."""
    try:
        json_edit.source_spans(notebook.text)
    except json_edit.JsonEditError as e:
        result.notes.append(f"cannot locate the cells in the JSON text ({e}); the notebook is left unchanged")
        for finding in result.findings:
            finding.applied = False
        return
    result.would_change = True


def _rewrite(notebook: Notebook, joined: _cells.Joined, masked: dict[int, magics.Masked], new_text: str) -> bytes | str:
    """The notebook's bytes with the changed cells; or why they cannot be written (a message)."""
    by_cell = changed_cells(new_text, joined, masked)
    if isinstance(by_cell, str):
        return by_cell
    by_index = {cell.index: cell for cell in notebook.cells}
    changed = {by_index[index].position: code for index, code in by_cell.items()}
    if not changed:
        return notebook.text.encode("utf-8")  # pragma: no cover - a change always touches a cell
    try:
        spans = json_edit.source_spans(notebook.text)
        text = json_edit.replace_sources(notebook.text, changed, spans)
    except (json_edit.JsonEditError, KeyError) as e:
        return f"cannot locate the cells in the JSON text ({e})"
    check = json.loads(text)
    for position, code in changed.items():
        if source_text(check["cells"][position]["source"]) != code:
            return f"the edited JSON does not hold the new code of cell {position + 1} (a bug in phiml-rewrite: please report it)"
        check["cells"][position]["source"] = notebook.data["cells"][position]["source"]
    if check != notebook.data:
        return "the edited JSON does not hold the same notebook (a bug in phiml-rewrite: please report it)"
    return (b"\xef\xbb\xbf" if notebook.bom else b"") + text.encode("utf-8")
