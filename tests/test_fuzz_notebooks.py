"""Fuzzing notebooks: golden programs cut into cells at random statements, with IPython lines put in.

For every such notebook: no internal error; the written notebook is valid and holds the same
notebook except the changed cells' code; a second run changes nothing; without IPython lines, the
rewritten cells, read one after the other, are the program the `.py` rewrite gives (the same syntax
tree: cell boundaries may only move blank lines); with them, every IPython line comes back as it was.
"""
from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import nbformat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from rewriter.engine import Settings, process_source
from rewriter.notebooks import process_notebook
from rewriter.notebooks.reading import source_text
from rewriter.registry import all_codemods

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = int(os.environ.get("PHIML_FUZZ_EXAMPLES", "80"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
PROGRAMS = [p.read_text() for p in sorted((ROOT / "golden").glob("*/*.py")) if not p.name.endswith(".expected.py")]
MAGICS = ["%time 1 + 1", "!echo hi", "%matplotlib inline", "print?", "files = !ls", "%env X=1"]
SETTINGS = Settings(all_codemods(), unsafe_fixes=True)


def _statement_lines(program: str) -> list[int]:
    """0-based first lines of the top-level statements (decorators included)."""
    starts = []
    for stmt in ast.parse(program).body:
        decorators = getattr(stmt, "decorator_list", [])
        starts.append(min([stmt.lineno, *(d.lineno for d in decorators)]) - 1)
    return starts


@st.composite
def notebooks(draw, with_magics: bool):
    program = draw(st.sampled_from(PROGRAMS))
    lines = program.splitlines(keepends=True)
    starts = _statement_lines(program)
    cuts = sorted(set(draw(st.lists(st.sampled_from(starts[1:] or [0]), max_size=6))) - {0})
    pieces = ["".join(lines[a:b]) for a, b in zip([0, *cuts], [*cuts, len(lines)])]
    cells = []
    for piece in pieces:
        if draw(st.booleans()):
            piece = piece.rstrip("\n")  # notebooks store most cells without a final newline
        if with_magics and draw(st.booleans()):
            piece = draw(st.sampled_from(MAGICS)) + "\n" + piece
        if draw(st.integers(0, 4)) == 0:
            cells.append(new_markdown_cell("notes"))
        cells.append(new_code_cell(piece))
    nb = new_notebook()
    nb.cells = cells
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"c{i}"
    indent = draw(st.sampled_from([1, 2, None]))
    return program, json.dumps(nb, indent=indent, sort_keys=True).encode()


def _code(source: bytes) -> list[str]:
    return [source_text(c["source"]) for c in json.loads(source)["cells"] if c["cell_type"] == "code"]


def _check(source: bytes):
    result = process_notebook(source, "fuzz.ipynb", SETTINGS)
    assert result.error is None, result.error
    if result.new_source is None:
        assert not any(f.applied for f in result.findings) or result.notes
        return result, _code(source)
    nbformat.validate(nbformat.reads(result.new_source.decode(), as_version=nbformat.NO_CONVERT))
    before, after = json.loads(source), json.loads(result.new_source)
    for old, new in zip(before["cells"], after["cells"]):
        new["source"] = old["source"]
    assert before == after  # only code changed
    again = process_notebook(result.new_source, "fuzz.ipynb", SETTINGS)
    assert again.error is None and again.new_source is None, "a second run changed the notebook"
    return result, _code(result.new_source)


@FUZZ
@given(notebooks(with_magics=False))
def test_cells_rewrite_to_the_program_the_py_rewrite_gives(case):
    program, source = case
    _, cells = _check(source)
    expected = process_source(program.encode(), "fuzz.py", SETTINGS)
    if expected.error:
        return
    want = expected.new_source if expected.new_source is not None else program.encode()
    assert ast.dump(ast.parse("\n".join(cells))) == ast.dump(ast.parse(want))


@FUZZ
@given(notebooks(with_magics=True))
def test_ipython_lines_survive_every_rewrite(case):
    _, source = case
    old = _code(source)
    result, new = _check(source)
    magic_lines = lambda cells: sorted(line for c in cells for line in c.splitlines() if line in MAGICS)  # noqa: E731
    assert magic_lines(new) == magic_lines(old)


@FUZZ
@given(notebooks(with_magics=True), st.booleans())
def test_a_check_of_top_level_ipython_lines_says_what_the_rewrite_says(case, unsafe):
    """IPython lines at the top level of cells leave a report pass (`--check`) on `ast`, without libcst,
    and it says what the rewrite says: which findings are fixed, whether the notebook changes, the notes."""
    _, source = case
    said = {}
    for rewrite in (False, True):
        settings = Settings(all_codemods(), unsafe_fixes=unsafe, rewrite=rewrite, original_positions=True)
        result = process_notebook(source, "fuzz.ipynb", settings)
        said[rewrite] = (result.changed, sorted((f.code, f.span.line, f.applied) for f in result.findings), result.notes,
                         result.error)
        assert rewrite or not result.libcst_parsed
    assert said[False] == said[True]
