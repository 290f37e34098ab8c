"""`verify` and `profile` on notebooks: the notebook runs itself in a real Jupyter kernel per backend.

The runtime reaches the kernel as it reaches any Python process of a verified command (the
bootstrap's sitecustomize), and instruments the cells through IPython's AST hook: the changed
functions are recorded and compared exactly as for scripts, without reading cell outputs.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from rewriter.cli import main
from rewriter.verify.report import DIFFERS, EQUAL, FAILS

pytestmark = pytest.mark.backends

DAMP = "@math.jit_compile\ndef damp(x):\n    if (x > 1).any:\n        y = x * 0.5\n    else:\n        y = -x\n    return y"
CALLS = "%time a = damp(math.tensor([4., 1.], spatial('x')))\nb = damp(math.tensor([0.5, 1.], spatial('x')))\nprint(a, b)"


def _notebook(path: Path, *cells: str) -> Path:
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [new_markdown_cell("# a notebook"), new_code_cell("from phiml import math\nfrom phiml.math import spatial"),
                *(new_code_cell(c) for c in cells)]
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"c{i}"
    nbformat.write(nb, str(path))
    return path


def _run(args: list[str]) -> tuple[int, dict]:
    result = CliRunner().invoke(main, [*args, "--output-format", "json"], catch_exceptions=False)
    return result.exit_code, json.loads(result.output)


def test_a_traced_if_fails_or_differs_before_and_agrees_after(tmp_path, monkeypatch):
    """numpy (the original agrees), torch (silently wrong) and jax (raises): tensorflow's kernel would
    show what jax's does, at the cost of its start-up (test_verify runs the script form on all four)."""
    _notebook(tmp_path / "nb.ipynb", DAMP, CALLS)
    monkeypatch.chdir(tmp_path)
    code, data = _run(["verify", "nb.ipynb", "--unsafe-fixes", "--backend", "numpy", "--backend", "torch", "--backend", "jax"])
    assert code == 0, data
    verdicts = {u["backend"]: u for u in data["verification"]["units"] if u["unit"] == "damp"}
    assert {u["file"] for u in data["verification"]["units"]} == {"nb.ipynb"}
    original = {b: (v["original"]["status"], v["original"]["detail"].split(":")[0]) for b, v in verdicts.items()}
    assert original["numpy"][0] == EQUAL
    assert original["torch"][0] == DIFFERS  # silently wrong: the first call's branch is baked in
    assert original["jax"] == (FAILS, "TracerBoolConversionError")
    assert set(verdicts) == {"numpy", "torch", "jax"}
    for backend, v in verdicts.items():
        assert (v["rewritten"]["status"], v["rewritten_eager"]["status"]) == (EQUAL, EQUAL), backend
        assert v["verified"]
    backends = {b["backend"]: b for b in data["verification"]["backends"]}
    assert backends["jax"]["program"]["original_jit"].startswith("fails")
    assert backends["torch"]["program"]["original_jit"] == "ok"


def test_a_notebook_whose_original_fails_is_reported_as_a_script_is(tmp_path, monkeypatch):
    _notebook(tmp_path / "nb.ipynb", DAMP, "raise RuntimeError('the data file is missing')", CALLS)
    monkeypatch.chdir(tmp_path)
    code, data = _run(["verify", "nb.ipynb", "--unsafe-fixes", "--backend", "numpy"])
    assert code == 2, data
    backend = data["verification"]["backends"][0]
    assert backend["problems"] == ["the original, run eagerly, fails (exit 1): nothing to compare with on numpy"]
    assert "cell 4 raised RuntimeError: the data file is missing" in json.dumps(data)


SCALE = "@math.jit_compile\ndef scale(x, factor):\n    return x * factor"
GROWING = "!echo growing\nfor i in range(5):\n    y = scale(math.zeros(spatial(x=i + 1)), 2.)\nprint(y)"


def test_profile_names_a_notebooks_functions_by_cell_and_fix_writes_into_the_cell(tmp_path, monkeypatch):
    path = _notebook(tmp_path / "nb.ipynb", SCALE, GROWING)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["profile", "--output-format", "json", "--backend", "jax", "--fix", "nb.ipynb"])
    code, data = result.exit_code, json.loads(result.output)
    assert code == 1, data  # something re-traces
    [function] = [f for f in data["retracing"] if f["name"] == "scale"]
    assert (function["file"], function["line"], function["traces"]) == ("nb.ipynb:cell 3", 1, 5)
    assert [w["applied"] for w in data["written"]] == [["PML401:3"]]  # cell 3 is line 3 of the cells joined
    cells = json.loads(path.read_text())["cells"]
    assert "".join(cells[2]["source"]) == SCALE.replace("@math.jit_compile", "@math.jit_compile(forget_traces=True)")
    assert "".join(cells[3]["source"]) == GROWING


def test_verify_in_place_writes_the_verified_unsafe_fix_into_the_cell(tmp_path, monkeypatch):
    path = _notebook(tmp_path / "nb.ipynb", DAMP, CALLS)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["verify", "nb.ipynb", "--in-place", "--backend", "numpy", "--backend", "jax"])
    assert result.exit_code == 0, result.output
    cells = json.loads(path.read_text())["cells"]
    assert "".join(cells[2]["source"]) == "@math.jit_compile\ndef damp(x):\n    y = math.where(math.any(x > 1, dim=math.shape), x * 0.5, -x)\n    return y"
    assert "".join(cells[3]["source"]) == CALLS  # IPython lines and the other cells as they were




def test_a_cell_that_times_out_is_the_runs_failure_named_by_cell(tmp_path, monkeypatch, capsys):
    """nbclient's timeout is no Python error in the kernel: the runner still names the cell (a
    stand-in runtime here: only the runner's handling of the kernel is under test)."""
    from rewriter.verify import notebook_runner

    (tmp_path / f"{notebook_runner.RUNTIME}.py").write_text("def instrument_notebook(shell, path): pass\ndef flush(): pass\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    monkeypatch.setattr(notebook_runner, "TIMEOUT", 3)
    path = _notebook(tmp_path / "nb.ipynb", "import time\ntime.sleep(60)")
    assert notebook_runner.main(str(path)) == 1
    assert f"{path}: cell 3 raised CellTimeoutError: " in capsys.readouterr().err


def test_the_kernel_exits_on_its_own_and_leaves_nothing_behind(tmp_path, monkeypatch):
    """The kernel is asked to exit, not killed: its exit handlers run (tensorflow's autograph deletes
    the modules it wrote to the temporary directory there, 157 files for the demo notebook), and the
    folder of its sockets goes with it."""
    import shutil
    import tempfile

    from rewriter.verify import notebook_runner

    (tmp_path / f"{notebook_runner.RUNTIME}.py").write_text("def instrument_notebook(shell, path): pass\ndef flush(): pass\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    scratch = Path(tempfile.mkdtemp())  # the system's: a socket's path has a length limit
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    marker = tmp_path / "exited"
    path = _notebook(tmp_path / "nb.ipynb", f"import atexit, pathlib\natexit.register(pathlib.Path({str(marker)!r}).touch)")
    try:
        assert notebook_runner.main(str(path)) == 0
        assert marker.exists() and list(scratch.iterdir()) == []
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
