"""Notebooks as input: IPython syntax, cells as one module, positions, writing, bad input, the CLI."""
from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from rewriter import runner
from rewriter.cli import main
from rewriter.config import load
from rewriter.engine import Settings
from rewriter.notebooks import cells as _cells
from rewriter.notebooks import json_edit, magics, module_of, process_notebook, reading
from rewriter.registry import all_codemods

TRACED_IF = "@jax.jit\ndef step(x):\n    if x.sum() > 0:\n        return x * 2\n    return -x"
TRACED_IF_FIXED = "@jax.jit\ndef step(x):\n    return jnp.where(x.sum() > 0, x * 2, -x)"


def notebook(*cells, language: str | None = "python", **metadata) -> nbformat.NotebookNode:
    nb = new_notebook()
    if language is not None:
        nb.metadata["kernelspec"] = {"name": "k", "display_name": "K", "language": language}
    nb.metadata.update(metadata)
    nb.cells = [c if isinstance(c, dict) else new_code_cell(c) for c in cells]
    for i, c in enumerate(nb.cells):
        c["id"] = f"c{i}"
    return nb


def write(path: Path, nb) -> Path:
    nbformat.write(nb, str(path))
    return path


def process(source: bytes, name: str = "nb.ipynb", **settings):
    return process_notebook(source, name, Settings(all_codemods(), **settings))


def jax_notebook(*rest) -> nbformat.NotebookNode:
    return notebook(new_markdown_cell("# A title"), "import jax\nimport jax.numpy as jnp", TRACED_IF, *rest)


def code_cells(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    return [reading.source_text(c["source"]) for c in data["cells"] if c["cell_type"] == "code"]


# -- IPython syntax ------------------------------------------------------------------------------

CELLS_WITH_MAGICS = [
    "%matplotlib inline\nimport jax",
    "!pip install phiml\nx = 1",
    "files = !ls -la\nprint(files)",
    "t = %timeit -o sum(range(10))",
    "import numpy as np\nnp.sum?\n??np.mean",
    "%time y = sum(range(3))",
    "%%time\nz = 1\nz += 1",
    "%%capture out\nprint(1)",
    "for i in range(2):\n    !echo $i\n    %time i * 2",
    "%time f(1, \\\n   2)\nx = 2",
    "x = 5 % 3\nz = {'a': 1}",
    "d = {}\nd['k'] = !ls\nd[0] = %who_ls",
    "x: list = !ls",
    "s = 'a\u2028b'  # a line separator inside a string is no line break for Python\n!ls",
]


@pytest.mark.parametrize("code", CELLS_WITH_MAGICS)
def test_masked_cells_parse_keep_their_lines_and_restore_byte_for_byte(code):
    masked = magics.mask(code)
    assert masked is not None
    ast.parse(masked.text)
    assert masked.text.count("\n") == code.count("\n")
    assert magics.unmask(masked.text, masked) == code


@pytest.mark.parametrize("code", ["%%bash\necho hi", "%%writefile a.py\nimport os", "%%html\n<b>x</b>", "%%python3\nprint(1)"])
def test_cell_magics_whose_body_is_not_python_are_opaque(code):
    assert magics.mask(code) is None


def test_a_placeholder_the_rewrite_moved_is_not_restored():
    masked = magics.mask("for i in range(2):\n    !echo $i\n    x = i")
    moved = masked.text.replace("    pass", "        pass")
    assert magics.unmask(moved, masked) is None
    assert magics.unmask(masked.text + masked.text.splitlines()[1].strip() + "\n", masked) is None


def test_placeholder_text_written_by_hand_makes_the_cell_opaque():
    assert magics.mask("x = 1  # phiml-rewrite: IPython 1") is None


# -- cells as one module -------------------------------------------------------------------------


def test_join_and_split_are_inverse_and_keep_missing_final_newlines():
    cells = [(2, "import jax"), (3, "a = 1\n"), (5, ""), (7, "def f():\n    return 1")]
    joined = _cells.join(cells)
    assert _cells.split(joined.source, joined) == dict(cells)
    positions = _cells.LineMap(joined.source)
    assert positions.cell_line(joined.source.splitlines().index("def f():") + 1) == (7, 1)
    assert _cells.split(joined.source.replace("# phiml-rewrite: notebook cell 5\n", ""), joined) is None


def test_an_import_added_at_the_top_lands_in_the_first_cell(tmp_path):
    nb = notebook(new_markdown_cell("x"), "import jax\nimport jax.numpy as jnp",
                  "@jax.jit\ndef features(v, *, flat: bool = False):\n    if flat:\n        out = v.reshape(-1)\n"
                  "    else:\n        out = v[:, None]\n    return out * 2",
                  "features(jnp.arange(3.), flat=True)")
    result = process(nbformat.writes(nb).encode())
    assert result.error is None and result.new_source is not None
    first, second, third = [reading.source_text(c["source"]) for c in json.loads(result.new_source)["cells"][1:]]
    assert first == "import jax\nimport jax.numpy as jnp\nimport functools"
    assert second.startswith("@functools.partial(jax.jit, static_argnames=('flat',))\n")
    assert third == "features(jnp.arange(3.), flat=True)"


def test_rules_see_the_whole_notebook_def_in_one_cell_call_in_another():
    """PML204 needs the call (a Python bool passed) in cell 4 to judge the def in cell 3."""
    nb = notebook("import jax\nimport jax.numpy as jnp", "x = jnp.arange(3.)",
                  "@jax.jit\ndef features(v, flat):\n    if flat:\n        return v.reshape(-1)\n    return v[:, None]",
                  "features(x, True)\nfeatures(x, False)")
    found = [(f.code, f.cell, f.span.line) for f in process(nbformat.writes(nb).encode()).findings]
    assert ("PML204", 3, 2) in found  # `flat` in `def features(v, flat):`


def test_lifted_code_goes_to_the_top_of_the_cell_that_uses_it_never_to_a_later_cell():
    nb = notebook("from phiml import math\nfrom phiml.math import Solve, spatial", "DT = 0.1",
                  "u0 = math.tensor([0., 1., 3.], spatial('x'))\n"
                  "def diffuse(u, dt):\n    return math.solve_linear(math.jit_compile_linear(lambda x: x - dt * math.laplace(x)),"
                  " u, Solve('CG', 1e-5, 1e-5, x0=u))", "diffuse(u0, DT)")
    result = process(nbformat.writes(nb).encode())
    cells = [reading.source_text(c["source"]) for c in json.loads(result.new_source)["cells"]]
    assert cells[:2] == ["from phiml import math\nfrom phiml.math import Solve, spatial", "DT = 0.1"]
    assert cells[2].startswith("u0 = math.tensor([0., 1., 3.], spatial('x'))\n@math.jit_compile_linear(forget_traces=True)\ndef _diffuse_operator(x, dt):")
    assert cells[3] == "diffuse(u0, DT)"


def test_code_inserted_at_the_top_of_a_cell_goes_below_its_colab_form_header():
    """Colab reads `#@title` only on a cell's first line: an import, a hoisted wrapper or a lifted def
    put above it would hide the form's title."""
    nb = notebook("#@title Data\nN = 3", "import jax\nimport jax.numpy as jnp",
                  "#@title Model\n@jax.jit\ndef features(v, flat):\n    if flat:\n        return v.reshape(-1)\n    return v[:, None]",
                  "features(jnp.arange(3.), True)", "def smooth(x):\n    return 0.5 * x",
                  "# @title Run { display-mode: \"form\" }\n#@markdown Three steps.\nfor _ in range(3):\n"
                  "    y = jax.jit(smooth)(jnp.arange(3.))")
    result = process(nbformat.writes(nb).encode())
    cells = [reading.source_text(c["source"]) for c in json.loads(result.new_source)["cells"]]
    assert cells[0] == "#@title Data\nimport functools\n\nN = 3"
    assert cells[5].startswith("# @title Run { display-mode: \"form\" }\n#@markdown Three steps.\nsmooth_jit = jax.jit(smooth)\n")


@pytest.mark.parametrize("comment,header", [("#@title Setup", True), ("# @title", True), ("#@markdown *text*", True),
                                            ("#@titles", False), ("# title", False), ("#@param {type: 'number'}", False)])
def test_colab_form_headers(comment, header):
    from rewriter.boundaries import is_colab_form_header
    assert is_colab_form_header(comment) is header


# -- positions and output formats ------------------------------------------------------------------


def test_positions_are_cell_line_column_in_every_output(tmp_path):
    path = write(tmp_path / "nb.ipynb", jax_notebook("%time step(jnp.ones(3))"))
    runner_ = CliRunner()
    text = runner_.invoke(main, ["--no-cache", "--check", str(path)])
    assert f"{path}:cell 3:3:8: PML201" in text.output
    data = json.loads(runner_.invoke(main, ["--no-cache", "--output-format", "json", str(path)]).output)
    assert [(f["cell"], f["span"]["line"], f["span"]["column"]) for f in data["findings"]] == [(3, 3, 7)]
    github = runner_.invoke(main, ["--no-cache", "--output-format", "github", str(path)]).output
    assert "line=3,col=8" in github and "::cell 3: " in github
    sarif = json.loads(runner_.invoke(main, ["--no-cache", "--output-format", "sarif", str(path)]).output)
    result = sarif["runs"][0]["results"][0]
    assert result["properties"] == {"cell": 3} and result["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    diff = runner_.invoke(main, ["--no-cache", "--diff", str(path)]).output
    assert f"--- a/{str(path).lstrip('/')}:cell 3\n+++ b/{str(path).lstrip('/')}:cell 3\n" in diff
    assert "+    return jnp.where(x.sum() > 0, x * 2, -x)" in diff


def test_related_places_are_in_their_cells(tmp_path):
    nb = notebook("import jax", "@jax.jit\ndef f(x, n):\n    for i in range(n):\n        x = x + i\n    return x", "f(1.0, 3)")
    findings = process(nbformat.writes(nb).encode()).findings
    places = [r.where for f in findings for r in f.related]
    assert "cell 2:3:14" in places, places  # `n` used as a trip count: cell 2, line 3
    assert not [f.message for f in findings if re.search(r"\blines? \d", f.message)]  # places are related, not quoted


def test_a_directory_of_notebooks_only_is_found(tmp_path):
    write(tmp_path / "a.ipynb", jax_notebook())
    result = CliRunner().invoke(main, ["--no-cache", "--check", str(tmp_path)])
    assert "no Python files found" not in result.output
    assert "cell 3:3:8: PML201" in result.output


def test_notebooks_follow_the_excludes(tmp_path):
    (tmp_path / "skip").mkdir()
    write(tmp_path / "skip" / "a.ipynb", jax_notebook())
    write(tmp_path / "b.ipynb", jax_notebook())
    (tmp_path / ".gitignore").write_text("skip/\n")
    report = runner.run([str(tmp_path)], load([str(tmp_path)]))
    assert [Path(r.path).name for r in report.results] == ["b.ipynb"]


# -- writing ----------------------------------------------------------------------------------------


def _with_outputs(nb):
    nb.cells[2]["outputs"] = [new_output("stream", text="traced\n"),
                              new_output("display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"})]
    nb.cells[2]["execution_count"] = 7
    nb.cells[2]["metadata"] = {"tags": ["keep"], "collapsed": False}
    nb.metadata["custom"] = {"ordered": [3, 1, 2], "unicode": "Δt ≥ 0"}
    return nb


def test_in_place_on_a_directory_changes_only_fixed_cells_and_converges(tmp_path):
    styles = {"jupyter": dict(indent=1), "two_spaces": dict(indent=2), "four_spaces_unsorted": dict(indent=4, sort_keys=False),
              "one_line": dict(indent=None), "ascii": dict(indent=1, ensure_ascii=True)}
    originals = {}
    for name, style in styles.items():
        nb = _with_outputs(jax_notebook("print(step(jnp.ones(3)))"))
        text = json.dumps(nb, **{"sort_keys": True, **style}) + ("\n" if name != "one_line" else "")
        (tmp_path / f"{name}.ipynb").write_text(text, encoding="utf-8")
        originals[name] = text
    clean = tmp_path / "clean.ipynb"
    write(clean, notebook("import jax", "print(1)"))
    clean_bytes = clean.read_bytes()
    result = CliRunner().invoke(main, ["--no-cache", "--in-place", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert clean.read_bytes() == clean_bytes
    for name, text in originals.items():
        path = tmp_path / f"{name}.ipynb"
        new = path.read_text(encoding="utf-8")
        nbformat.validate(nbformat.reads(new, as_version=nbformat.NO_CONVERT))
        before, after = json.loads(text), json.loads(new)
        changed = [i for i, (a, b) in enumerate(zip(before["cells"], after["cells"])) if a != b]
        assert changed == [2], name
        assert reading.source_text(after["cells"][2]["source"]) == TRACED_IF_FIXED
        after["cells"][2]["source"] = before["cells"][2]["source"]
        assert after == before, name  # outputs, execution counts, metadata, ids: all kept
        # Only the source value's text changed: everything before and after it is the same text.
        start, end = json_edit.source_spans(text)[2]
        new_start, new_end = json_edit.source_spans(new)[2]
        assert new[:new_start] == text[:start] and new[new_end:] == text[end:], name
    again = CliRunner().invoke(main, ["--no-cache", "--in-place", str(tmp_path)])
    assert again.exit_code == 0 and "0 fixed in 0 files" in again.output


def test_a_source_stored_as_one_string_stays_one_string(tmp_path):
    nb = jax_notebook()
    data = json.loads(nbformat.writes(nb))
    for cell in data["cells"]:
        cell["source"] = reading.source_text(cell["source"])
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(data, indent=1))
    assert CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)]).exit_code == 0
    assert json.loads(path.read_text())["cells"][2]["source"] == TRACED_IF_FIXED


def test_a_notebook_that_changed_on_disk_during_the_run_is_not_written(tmp_path):
    path = write(tmp_path / "nb.ipynb", jax_notebook())
    [result] = runner.process_files([str(path)], runner.settings_for(load([str(path)])))
    write(path, jax_notebook("print(2)"))
    edited = path.read_bytes()
    runner.write_result(result)
    assert result.error == "changed on disk during the run; not written"
    assert path.read_bytes() == edited


def test_a_byte_order_mark_is_kept(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + nbformat.writes(jax_notebook()).encode())
    assert CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)]).exit_code == 0
    assert path.read_bytes().startswith(b"\xef\xbb\xbf{")
    assert code_cells(path)[1] == TRACED_IF_FIXED


_FLAGGED = "@jax.jit\ndef features(v, *, flat: bool = False):\n    if flat:\n        return v.reshape(-1)\n    return v[:, None]"


@pytest.mark.parametrize("imports", ["import jax\nimport jax.numpy as jnp", "%%time\nimport jax\nimport jax.numpy as jnp"])
def test_an_import_added_to_a_notebook_goes_to_the_cell_of_its_imports(tmp_path, imports):
    """A Colab first cell (`%pip install`, skipped once the packages are there): `import functools`, which
    the engine adds at the top of the module, goes to the cell holding the notebook's imports instead,
    below a cell magic there (found on a jaxopt notebook)."""
    path = write(tmp_path / "nb.ipynb", notebook("%%capture\n!pip install jax", imports, _FLAGGED, "features(jnp.ones(3), flat=True)"))
    assert CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)]).exit_code == 0
    first, second, third, _ = code_cells(path)
    assert first == "%%capture\n!pip install jax"
    magic = "%%time\n" if imports.startswith("%%") else ""
    assert second == magic + "import functools\n\nimport jax\nimport jax.numpy as jnp"
    assert third.startswith("@functools.partial(jax.jit, static_argnames=('flat',))\n")
    assert CliRunner().invoke(main, ["--no-cache", "--check", str(path)]).exit_code == 0  # nothing left to do


def test_an_import_added_to_a_crlf_cell_ends_its_lines_as_the_cell_does(tmp_path):
    """The rewritten module joins cells with `\\n`: an import added to a cell whose lines end with CRLF
    took `\\n` and left the cell with both endings (found in review of stop 60)."""
    crlf = [c.replace("\n", "\r\n") for c in ("%%capture\n!pip install jax", "import jax\nimport jax.numpy as jnp", _FLAGGED)]
    path = write(tmp_path / "nb.ipynb", notebook(*crlf, "features(jnp.ones(3), flat=True)"))
    assert CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)]).exit_code == 0
    first, second, third, _ = code_cells(path)
    assert first == crlf[0]
    assert second == "import functools\r\n\r\nimport jax\r\nimport jax.numpy as jnp"
    assert third.startswith("@functools.partial(jax.jit, static_argnames=('flat',))\r\n") and "\r\r" not in third


@pytest.mark.parametrize("after, before, expected", [
    # a cell the rewrite changed comes before any cell of imports: the import goes there
    ({1: "import functools\n\npass", 2: "f = functools.partial(g)", 3: "import jax"},
     {1: "pass", 2: "f = g", 3: "import jax"}, {1: "pass", 2: "import functools\n\nf = functools.partial(g)", 3: "import jax"}),
    # the first cell holds imports itself, or the rewrite changed more of it, or nothing but an import was added
    ({1: "import functools\nimport jax\nx = 1", 2: "import numpy"}, {1: "import jax\nx = 1", 2: "import numpy"}, None),
    ({1: "import functools\n\ny = 2", 2: "import jax"}, {1: "x = 1", 2: "import jax"}, None),
    ({1: "x = functools.reduce\npass", 2: "import jax"}, {1: "pass", 2: "import jax"}, None),
    # a `%%timeit` cell (scoped) is never the target; the first changed cell being one leaves the import
    ({1: "import functools\n\npass", 2: "pass\nimport numpy", 3: "import jax", 4: "f = functools.partial(g)"},
     {1: "pass", 2: "pass\nimport numpy", 3: "import jax", 4: "f = g"},
     {1: "pass", 2: "pass\nimport numpy", 3: "import functools\n\nimport jax", 4: "f = functools.partial(g)"}),
    # a `from __future__` import must stay first in its cell
    ({1: "import functools\n\npass", 2: "from __future__ import annotations\nimport jax", 3: "f = functools.partial(g)"},
     {1: "pass", 2: "from __future__ import annotations\nimport jax", 3: "f = g"}, None),
    # the added lines end as their cell's do, where the import goes and where it stays
    ({1: "import functools\n\npass", 2: "import jax\r\nimport numpy", 3: "f = functools.partial(g)"},
     {1: "pass", 2: "import jax\r\nimport numpy", 3: "f = g"},
     {1: "pass", 2: "import functools\r\n\r\nimport jax\r\nimport numpy", 3: "f = functools.partial(g)"}),
    ({1: "import functools\nimport jax\r\nx = 1", 2: "y = functools.reduce"}, {1: "import jax\r\nx = 1", 2: "y = 1"},
     {1: "import functools\r\nimport jax\r\nx = 1", 2: "y = functools.reduce"}),
])
def test_where_an_added_import_goes(after, before, expected):
    from rewriter.notebooks import cells

    scoped = frozenset({2}) if "pass\nimport numpy" in before.values() else frozenset()
    assert cells.added_imports_to_the_imports_cell(after, before, scoped) == (after if expected is None else expected)


def test_a_changed_timeit_cell_first_leaves_an_added_import_where_the_engine_put_it():
    from rewriter.notebooks import cells

    after = {1: "import functools\n\npass", 2: "pass\nf = functools.partial(g)", 3: "import jax", 4: "h = functools.partial(g)"}
    before = {1: "pass", 2: "pass\nf = g", 3: "import jax", 4: "h = g"}
    assert cells.added_imports_to_the_imports_cell(after, before, frozenset({2})) == after


@pytest.mark.parametrize("cells, imports_at", [
    # `%%timeit` runs its body in a function: an import there binds nothing for the other cells (found in review)
    (("%pip install jax", "%%timeit\nimport numpy as np\nnp.zeros(1000)", "import jax\nimport jax.numpy as jnp"), 2),
    (("%%timeit -n1\nimport numpy as np\nnp.zeros(10)", "import jax\nimport jax.numpy as jnp"), 1),
])
def test_an_added_import_never_goes_to_a_timeit_cell(tmp_path, cells, imports_at):
    path = write(tmp_path / "nb.ipynb", notebook(*cells, _FLAGGED, "features(jnp.ones(3), flat=True)"))
    assert CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)]).exit_code == 0
    found = code_cells(path)
    assert [i for i, code in enumerate(found) if "import functools" in code] == [imports_at]
    assert found[imports_at] == "import functools\n\nimport jax\nimport jax.numpy as jnp"
    assert all(code == cells[i] for i, code in enumerate(found[: len(cells)]) if i != imports_at)


def test_a_cell_magic_stays_the_first_line_when_an_import_is_added_above_it():
    alone = magics.mask("%%time")
    assert magics.unmask("import functools\n\n" + alone.text, alone) == "%%time\nimport functools"


def test_positions_of_fixed_findings_stay_right_when_an_earlier_cell_grows(tmp_path):
    """A lift inserts lines into cell 3; a finding of the same pass in cell 5 keeps its cell and line."""
    nb = notebook("import jax\nimport jax.numpy as jnp\nfrom phiml import math\nfrom phiml.math import Solve, spatial",
                  "DT = 0.1",
                  "def diffuse(u, dt):\n    return math.solve_linear(math.jit_compile_linear(lambda x: x - dt * math.laplace(x)),"
                  " u, Solve('CG', 1e-5, 1e-5, x0=u))",
                  "u0 = math.tensor([0., 1., 3.], spatial('x'))", TRACED_IF)
    path = write(tmp_path / "nb.ipynb", nb)
    expected = {("PML101", 3, 2), ("PML201", 5, 3)}
    for args in (["--output-format", "json"], ["--output-format", "json", "--in-place"]):
        data = json.loads(CliRunner().invoke(main, ["--no-cache", *args, str(path)]).output)
        assert {(f["code"], f["cell"], f["span"]["line"]) for f in data["findings"]} == expected, args
    assert code_cells(path)[4] == TRACED_IF_FIXED


def test_line_separators_inside_a_cell_do_not_move_positions():
    nb = notebook("import jax  # see\u2028the docs\nimport jax.numpy as jnp", TRACED_IF)
    found = [(f.code, f.cell, f.span.line) for f in process(nbformat.writes(nb).encode()).findings]
    assert found == [("PML201", 2, 3)]


def test_ipython_lines_next_to_a_fix_are_restored(tmp_path):
    cell = "%%time\n@jax.jit\ndef step(x):\n    !echo tracing\n    if x.sum() > 0:\n        return x * 2\n    return -x"
    path = write(tmp_path / "nb.ipynb", notebook("import jax\nimport jax.numpy as jnp", cell))
    assert CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)]).exit_code == 0
    assert code_cells(path)[1] == "%%time\n@jax.jit\ndef step(x):\n    !echo tracing\n    return jnp.where(x.sum() > 0, x * 2, -x)"


# -- bad input --------------------------------------------------------------------------------------


def _bad(tmp_path: Path, name: str, content: bytes) -> tuple[str, Path]:
    good = write(tmp_path / "good.ipynb", jax_notebook())
    bad = tmp_path / name
    bad.write_bytes(content)
    result = CliRunner().invoke(main, ["--no-cache", "--in-place", str(tmp_path)])
    assert code_cells(good)[1] == TRACED_IF_FIXED  # the other files are still processed
    assert bad.read_bytes() == content  # nothing written for the bad one
    return result.output, bad


@pytest.mark.parametrize("name,content,message", [
    ("json.ipynb", b'{"cells": [', "invalid JSON at line 1, column 12"),
    ("v3.ipynb", json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": [], "metadata": {}}).encode(),
     "nbformat 3 notebook: only nbformat 4 is read"),
    ("binary.ipynb", b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8"),
    ("list.ipynb", b"[1, 2]", "not a Jupyter notebook"),
    ("source.ipynb", json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": "a", "metadata": {}, "outputs": [], "execution_count": None, "source": 3}]}).encode(),
     "the `source` of cell 1 is neither text nor a list of lines"),
    ("surrogate.ipynb", b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "id": "a", '
     b'"metadata": {}, "outputs": [], "execution_count": null, "source": "x = \'\\ud800\'"}]}',
     "cell 1 holds a character that is not Unicode text"),
])
def test_bad_notebooks_get_one_line_naming_the_file(tmp_path, name, content, message):
    output, bad = _bad(tmp_path, name, content)
    lines = [line for line in output.splitlines() if str(bad) in line]
    assert len(lines) == 1 and f"{bad}: error: " in lines[0] and message in lines[0], output


def _lenient(tmp_path: Path, name: str, edit) -> tuple[str, Path, bytes]:
    """A notebook Jupyter opens but nbformat's schema rejects (edited by `edit`), fixed in place."""
    data = json.loads(nbformat.writes(jax_notebook()))
    edit(data)
    path = tmp_path / name
    path.write_bytes(json.dumps(data, indent=1).encode())
    before = path.read_bytes()
    result = CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)])
    assert result.exit_code == 0, result.output
    return result.output, path, before


def _only_sources_changed(before: bytes, after: bytes, positions: set[int]) -> None:
    """Every byte outside the `source` values of the cells at `positions` is as it was."""
    old, new = before.decode(), after.decode()
    old_spans, new_spans = json_edit.source_spans(old), json_edit.source_spans(new)
    cut = lambda text, spans: [text[a:b] for a, b in zip([0] + [spans[p][1] for p in sorted(positions)],  # noqa: E731
                                                         [spans[p][0] for p in sorted(positions)] + [len(text)])]
    assert cut(old, old_spans) == cut(new, new_spans)


@pytest.mark.parametrize("metadata", [{"kernelspec": "python3"}, {"language_info": ["python"]}])
def test_metadata_of_the_wrong_shape_is_read_as_python_and_written(tmp_path, metadata):
    output, path, before = _lenient(tmp_path, "metadata.ipynb", lambda data: data.update(metadata=metadata))
    assert "internal error" not in output and "schema" not in output
    assert code_cells(path)[1] == TRACED_IF_FIXED
    _only_sources_changed(before, path.read_bytes(), {2})


@pytest.mark.parametrize("name,edit", [
    ("markdown_count.ipynb", lambda data: data["cells"][0].update(execution_count=1)),  # on a markdown cell
    ("ids_in_4_4.ipynb", lambda data: data.update(nbformat_minor=4)),  # cell ids came with 4.5
    ("unknown_fields.ipynb", lambda data: (data.update({"x-tool": {"k": [1, None]}}),
                                           data["cells"][2].update({"x-cell": "kept", "attachments": {}}))),
    ("future_minor.ipynb", lambda data: data.update(nbformat_minor=99)),
])
def test_a_notebook_jupyter_opens_is_written_keeping_every_other_byte(tmp_path, name, edit):
    output, path, before = _lenient(tmp_path, name, edit)
    assert "1 finding, 1 fixed in 1 file" in output and "note:" not in output, output
    assert code_cells(path)[1] == TRACED_IF_FIXED
    _only_sources_changed(before, path.read_bytes(), {2})
    again = CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)])
    assert again.exit_code == 0 and "0 fixed" in again.output


@pytest.mark.parametrize("name,content,message", [
    ("nocells.ipynb", json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}}).encode(), "no `cells` list"),
    ("notype.ipynb", json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"source": "x"}]}).encode(),
     "cell 1 has no `cell_type`"),
    ("nosource.ipynb", json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": []}]}).encode(), "code cell 1 has no `source`"),
])
def test_what_leaves_no_code_to_read_is_still_refused_naming_the_file(tmp_path, name, content, message):
    output, bad = _bad(tmp_path, name, content)
    lines = [line for line in output.splitlines() if str(bad) in line]
    assert len(lines) == 1 and f"{bad}: error: not a valid notebook: {message}" in lines[0], output


@pytest.mark.parametrize("content,held", [(b"", "0 bytes"), (b"  \n\t\n", "only whitespace"), (b"\xef\xbb\xbf\n", "only whitespace")])
def test_an_empty_file_is_an_empty_notebook_noted_and_the_run_goes_on(tmp_path, monkeypatch, content, held):
    good = write(tmp_path / "good.ipynb", jax_notebook())
    empty = tmp_path / "empty.ipynb"
    empty.write_bytes(content)
    result = CliRunner().invoke(main, ["--no-cache", "--in-place", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"{empty}: note: an empty notebook ({held}): nothing to check" in result.output
    assert empty.read_bytes() == content and code_cells(good)[1] == TRACED_IF_FIXED
    assert module_of(content) == ("", [])  # the other readers of a notebook's code: no cells, no error
    explained = CliRunner().invoke(main, ["explain-trace", f"{empty}:cell 1:1"])
    assert "cell 1 is not analysed" in explained.output and "Traceback" not in explained.output
    monkeypatch.chdir(tmp_path)
    verified = CliRunner().invoke(main, ["verify", empty.name, "--backend", "numpy"])
    assert verified.exit_code == 0 and "nothing to verify" in verified.output, verified.output


def test_a_cell_that_does_not_parse_is_named_and_the_others_are_processed(tmp_path):
    path = write(tmp_path / "nb.ipynb", jax_notebook("def broken(:\n    pass"))
    result = CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)])
    assert f"{path}: note: cell 4: syntax error at line 1: invalid syntax; this cell is left out" in result.output
    assert code_cells(path)[1:] == [TRACED_IF_FIXED, "def broken(:\n    pass"]


def test_another_kernel_language_is_left_alone_and_said_so(tmp_path):
    path = write(tmp_path / "r.ipynb", notebook("if (x > 0) { print(x) }", language="R"))
    result = CliRunner().invoke(main, ["--no-cache", str(path)])
    assert f"{path}: note: kernel language is R, not Python: left alone" in result.output
    assert result.exit_code == 0


def test_enormous_outputs_are_kept_and_a_limit_names_the_file(tmp_path, monkeypatch):
    nb = jax_notebook()
    nb.cells[2]["outputs"] = [new_output("stream", text="x" * (8 * 2**20))]
    path = write(tmp_path / "big.ipynb", nb)
    assert CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)]).exit_code == 0
    data = json.loads(path.read_text())
    assert reading.source_text(data["cells"][2]["outputs"][0]["text"]) == "x" * (8 * 2**20)
    monkeypatch.setattr(reading, "MAX_BYTES", 2**20)
    result = process(path.read_bytes(), "big.ipynb")
    assert result.error.startswith("8 MB, more than the 1 MB a notebook may have here")


# -- cache ------------------------------------------------------------------------------------------


def test_notebooks_are_cached_with_their_cells(tmp_path):
    path = write(tmp_path / "nb.ipynb", jax_notebook())
    args = ["--cache-dir", str(tmp_path / "cache"), "--output-format", "json", str(path)]
    first = json.loads(CliRunner().invoke(main, args).output)
    second = json.loads(CliRunner().invoke(main, args).output)
    assert second["summary"]["cached"] == 1
    assert first["findings"] == second["findings"] and second["findings"][0]["cell"] == 3


def test_extend_include_adds_files_and_extend_exclude_can_leave_notebooks_out(tmp_path):
    (tmp_path / "tool.pyw").write_text("import jax\n" + TRACED_IF + "\n")
    write(tmp_path / "nb.ipynb", jax_notebook())
    (tmp_path / "pyproject.toml").write_text('[tool.phiml-rewrite]\nextend-include = ["*.pyw"]\n')
    names = lambda report: sorted(Path(r.path).name for r in report.results)  # noqa: E731
    assert names(runner.run([str(tmp_path)], load([str(tmp_path)]))) == ["nb.ipynb", "tool.pyw"]
    config = load([str(tmp_path)]).override(extend_exclude=["*.ipynb"])
    assert names(runner.run([str(tmp_path)], config)) == ["tool.pyw"]
    result = CliRunner().invoke(main, ["--no-cache", "--check", "--extend-include", "*.txt", str(tmp_path)])
    assert "tool.pyw:" in result.output


def test_explain_trace_takes_a_cell_and_answers_in_cells(tmp_path):
    path = write(tmp_path / "nb.ipynb", jax_notebook())
    result = CliRunner().invoke(main, ["explain-trace", f"{path}:cell 3:3"])
    assert result.output.startswith(f"{path}:cell 3:3:8 if condition `x.sum() > 0` in `step`"), result.output
    assert "TRACED" in result.output
    missing = CliRunner().invoke(main, ["explain-trace", f"{path}:3"])
    assert missing.exit_code == 2 and "NOTEBOOK:cell N:LINE" in missing.output


def test_a_cell_holding_the_cell_marker_is_left_out_not_mis_split(tmp_path):
    path = write(tmp_path / "nb.ipynb", jax_notebook("# phiml-rewrite: notebook cell 2\nprint(1)"))
    result = CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)])
    assert f"{path}: note: cell 4: holds the comment phiml-rewrite marks cells with; this cell is left out" in result.output
    assert code_cells(path)[1:] == [TRACED_IF_FIXED, "# phiml-rewrite: notebook cell 2\nprint(1)"]


# -- notebooks paired by jupytext -----------------------------------------------------------------

PERCENT_HEADER = ("# ---\n# jupyter:\n#   jupytext:\n#     formats: {formats}\n#     text_representation:\n"
                  "#       extension: .py\n#       format_name: percent\n# ---\n\n")


def _pair(tmp_path: Path, formats: str, twin: str | None, text_formats: str | None = None, metadata: bool = True) -> tuple[Path, Path | None]:
    nb = jax_notebook()
    if metadata:
        nb.metadata["jupytext"] = {"formats": formats}
    path = write(tmp_path / "nb.ipynb", nb)
    if twin is None:
        return path, None
    other = tmp_path / twin
    other.parent.mkdir(parents=True, exist_ok=True)
    header = PERCENT_HEADER.format(formats=text_formats or formats)
    other.write_text(header + "# %%\nimport jax\nimport jax.numpy as jnp\n\n# %%\n" + TRACED_IF + "\n" if twin.endswith(".py")
                     else "---\njupytext:\n  formats: " + (text_formats or formats) + "\n---\n\n```{code-cell}\nimport jax\n```\n")
    return path, other


@pytest.mark.parametrize("formats,twin,text_formats,metadata", [
    ("ipynb,py:percent", "nb.py", None, True),
    ("ipynb,md:myst", "nb.md", None, True),
    ("ipynb,.pct.py:percent", "nb.pct.py", None, True),
    ("ipynb,auto:light", "nb.py", None, True),
    ("notebooks/ipynb,scripts/py:percent", None, None, True),  # resolved below, in its own layout
    ("", "nb.py", "ipynb,py:percent", False),  # only the twin's header says so (formats in a config file)
])
def test_a_pair_is_left_alone_both_sides_with_a_note_naming_the_twin(tmp_path, formats, twin, text_formats, metadata):
    if twin is None:  # notebooks/nb.ipynb <-> scripts/nb.py
        tmp_path = tmp_path / "notebooks"
        tmp_path.mkdir()
        twin = "../scripts/nb.py"
    path, other = _pair(tmp_path, formats, twin, text_formats, metadata)
    before, twin_before = path.read_bytes(), other.read_bytes()
    result = CliRunner().invoke(main, ["--no-cache", "--in-place", str(path.parent.parent if ".." in twin else path.parent)])
    assert path.read_bytes() == before and other.read_bytes() == twin_before, result.output
    name = os.path.relpath(other, path.parent)
    assert f"{path}: note: paired by jupytext with `{name}`" in result.output, result.output
    assert "neither file is rewritten" in result.output and "PML201" in result.output
    if other.suffix == ".py":  # the script is held back from its side too, naming the notebook
        assert f"{other.resolve()}: note: paired by jupytext with `{os.path.relpath(path, other.resolve().parent)}`" in result.output
    assert result.exit_code == 1  # the findings remain


def test_a_pairing_whose_twin_does_not_exist_is_no_pair(tmp_path):
    path, _ = _pair(tmp_path, "ipynb,py:percent", None)
    result = CliRunner().invoke(main, ["--no-cache", "--in-place", str(path)])
    assert "paired" not in result.output and code_cells(path)[1] == TRACED_IF_FIXED


def test_a_script_with_a_jupytext_header_but_no_notebook_beside_it_is_rewritten(tmp_path):
    script = tmp_path / "nb.py"
    script.write_text(PERCENT_HEADER.format(formats="ipynb,py:percent") + "import jax\nimport jax.numpy as jnp\n\n\n" + TRACED_IF + "\n")
    result = CliRunner().invoke(main, ["--no-cache", "--in-place", str(script)])
    assert "paired" not in result.output and "jnp.where" in script.read_text()


@pytest.mark.parametrize("text,formats", [
    ("#!/usr/bin/env python\n# ---\n# jupyter:\n#   jupytext:\n#     formats: 'ipynb,py:light'\n# ---\nx = 1\n", "ipynb,py:light"),
    ("# ---\n# title: not jupytext\n# ---\n", None),
    ("x = 1\n# ---\n# jupyter:\n#   jupytext:\n#     formats: ipynb,py\n# ---\n", None),  # not a header: code above it
    ("# ---\n# jupyter:\n#   jupytext:\n#     formats: ipynb,py\n", None),  # never closed
])
def test_the_jupytext_header_is_read_as_comment_lines(text, formats):
    from rewriter.notebooks.pairs import formats_of_text
    assert formats_of_text(text.encode(), ".py") == formats


def test_a_pair_is_held_back_when_served_from_the_cache_and_in_a_dry_run(tmp_path):
    path, twin = _pair(tmp_path, "ipynb,py:percent", "nb.py")
    args = ["--cache-dir", str(tmp_path / "cache"), str(path), str(twin)]
    for _ in range(2):
        result = CliRunner().invoke(main, args)
        assert result.output.count("note: paired by jupytext") == 2 and "0 fixable; 0 files would change" in result.output
    assert "from the cache" in result.output
    diff = CliRunner().invoke(main, ["--no-cache", "--diff", str(path), str(twin)])
    assert "+++" not in diff.output


def test_twins_resolve_folders_and_name_what_they_cannot_resolve(tmp_path):
    from rewriter.notebooks.pairs import twins
    (tmp_path / "nb").mkdir()
    (tmp_path / "py").mkdir()
    (tmp_path / "py" / "a.py").write_text("")
    (tmp_path / "nb" / "a.md").write_text("")
    notebook_path = str(tmp_path / "nb" / "a.ipynb")
    assert twins(notebook_path, "nb/ipynb,py/py:percent") == [str(tmp_path / "py" / "a.py")]
    assert twins(notebook_path, "ipynb,md,py:percent") == [str(tmp_path / "nb" / "a.md")]  # no a.py beside it
    assert twins(notebook_path, "notebooks//ipynb,scripts//py:percent") == ["scripts//py"]  # root prefixes: may exist
    assert twins(notebook_path, "py:percent,md") == []  # the formats do not name this file


def _check_and_rewrite(nb, **settings) -> dict:
    """What a report pass (`--check`) and a run that rewrites say of notebook `nb`: (whether it changes,
    whether libcst parsed it, the notes)."""
    source = nbformat.writes(nb).encode()
    out = {}
    for mode, rewrite in (("check", False), ("rewrite", True)):
        result = process(source, rewrite=rewrite, original_positions=True, **settings)
        out[mode] = (result.changed, result.libcst_parsed, result.notes)
    return out


@pytest.mark.parametrize("rest", [(), ("%time step(jnp.ones(3))",), ("!pip list\n%matplotlib inline\nx = 1",)],
                         ids=["no IPython lines", "a magic at the top level", "magics before code"])
def test_a_check_parses_no_notebook_whose_ipython_lines_no_fix_can_move(rest):
    """An IPython line at a cell's top level is one `pass` statement of the module, which no fix edits,
    moves or splits: there, as without any, a notebook's fix fits back into its cells, and `--check`
    decides on `ast` as for a `.py` file. It agrees with the rewrite, which libcst writes."""
    said = _check_and_rewrite(jax_notebook(*rest))
    assert said == {"check": (True, False, []), "rewrite": (True, True, [])}
    cell_magic = notebook("import jax\nimport jax.numpy as jnp", "%%time\n%matplotlib inline\n" + TRACED_IF)
    assert _check_and_rewrite(cell_magic) == said


def test_a_check_of_notebooks_counts_no_libcst_parse(tmp_path):
    write(tmp_path / "nb.ipynb", jax_notebook("%time step(jnp.ones(3))"))
    (tmp_path / "script.py").write_text("import jax\nimport jax.numpy as jnp\n\n\n" + TRACED_IF)
    result = CliRunner().invoke(main, ["--check", "--no-cache", "--output-format", "json", str(tmp_path)])
    summary = json.loads(result.stdout)["summary"]
    assert (summary["changed"], summary["libcst_parsed"]) == (2, 0)


_MOVED = "the rewrite of cell {} moves its IPython syntax (magics, `!` commands); the notebook is left unchanged"


@pytest.mark.parametrize("cells, unsafe, cell", [
    # a fix whose code holds an IPython line
    (["import jax\nimport jax.numpy as jnp",
      "@jax.jit\ndef step(x):\n    if x.sum() > 0:\n        %time y = 1\n        return x * 2\n    return -x"], False, 2),
    # a statement inserted between the lines of a magic continued with `\`, outside every node the fix names
    (["import jax\nimport jax.numpy as jnp\nimport numpy as np", "def smooth(x):\n    return 0.5 * (x + jnp.roll(x, 1))",
      "x = jnp.asarray(np.arange(6, dtype=np.float32))\n!echo smoothing \\\n    more\nfor _ in range(3):\n"
      "    x = jax.jit(smooth)(x)"], False, 3),
    # the outer `if` is merged by a later pass, over the IPython line its `else` holds
    (["from phiml import math", "@math.jit_compile\ndef nested(x):\n    if (x > 0).all:\n        if (x > 10).any:\n"
      "            y = x * 0.1\n        else:\n            y = x * 1.0\n    else:\n        %time z = 1\n        y = -x\n"
      "    return y"], True, 2),
], ids=["in the fix", "split by an insertion", "under a later pass's fix"])
def test_a_check_rewrites_a_notebook_whose_ipython_lines_a_fix_may_move(cells, unsafe, cell):
    """Whether a rewrite keeps IPython lines inside a compound statement, or continued over lines, is known
    only from the rewrite: a check that plans a fix computes it, and says what a run that writes says
    (here: the rewrite moves the IPython syntax of `cell`, and the notebook is left unchanged)."""
    said = _check_and_rewrite(notebook(*cells), unsafe_fixes=unsafe)
    expected = (False, True, [_MOVED.format(cell)])
    assert said == {"check": expected, "rewrite": expected}


def test_a_check_of_a_notebook_whose_cells_cannot_be_located_says_so(monkeypatch):
    from rewriter.notebooks import json_edit

    def unreadable(text):
        raise json_edit.JsonEditError("expected ',' at offset 7")

    monkeypatch.setattr(json_edit, "source_spans", unreadable)
    result = process(nbformat.writes(jax_notebook()).encode(), rewrite=False, original_positions=True)
    assert not result.changed and not result.libcst_parsed and [f.applied for f in result.findings] == [False]
    assert result.notes == ["cannot locate the cells in the JSON text (expected ',' at offset 7); the notebook is left unchanged"]



@pytest.mark.parametrize("settings", [{}, {"rewrite": False, "original_positions": True}])
def test_a_newer_grammar_s_note_names_the_cell_and_its_line(settings):
    """The note on a construct only a newer Python reads names where it is in the notebook, not a line of
    the cells joined into one module."""
    nb = notebook("import jax\nimport jax.numpy as jnp", "type Vec = list[float]\n" + TRACED_IF)
    result = process(nbformat.writes(nb).encode(), **settings)
    notes = [n for n in result.notes if "newer Python syntax" in n]
    assert len(notes) == 1 and "`type` statement at cell 2, line 1)" in notes[0], result.notes
    assert {f.code for f in result.findings} >= {"PML201"}
