"""Golden notebooks executed in a real Jupyter kernel (nbclient + ipykernel), the way users run them.

One kernel per backend runs every version of a case in turn: the runtime of `verify` is installed
into the kernel first (backend choice, eager mode, PhiML trace counts: what `rewriter.verify.child`
does for scripts), then each version's cells run top to bottom in a fresh namespace and the entry
function's value is written to a file by the kernel itself: values never pass through cell outputs.
"""
from __future__ import annotations

import ast
import json
import os
import tempfile
from dataclasses import dataclass

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbformat.v4 import new_code_cell, new_notebook

from rewriter.notebooks import cells as _cells
from rewriter.notebooks import magics
from rewriter.notebooks.reading import read
from rewriter import runtime


@dataclass(frozen=True)
class NotebookRun:
    label: str
    source: bytes  # the notebook's bytes
    eager: bool = False


def function_names(source: bytes) -> set[str]:
    """The functions the notebook's cells define (the runtime counts their traces only)."""
    notebook = read(source)
    masked = [(c.index, m.text) for c in notebook.cells if (m := magics.mask(c.code)) is not None]
    try:
        tree = ast.parse(_cells.join(masked).source)
    except SyntaxError:
        return {"<lambda>"}
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))} | {"<lambda>"}


_SETUP = """\
import warnings as _w
_w.filterwarnings("ignore")
from rewriter import runtime as _rt
_rt.install({{"backend": {backend!r}, "eager": False, "instrument": {{}}}})
if {backend!r} == "tensorflow":  # as the golden batches do (tests/harness/golden_batches.py, CONVERT_PHIML)
    from phiml import backend as _b
    _b.default_backend()
    from rewriter.verify.child import leave_phiml_unconverted as _unconverted
    _unconverted()
"""

_START = """\
get_ipython().reset(new_session=False)
from rewriter import runtime as _rt
_rec = _rt.state.recorder
_rec.phiml_traces.clear(); _rec.phiml_cache.clear(); _rec.jax_compiles.clear()
_rec.user_functions = set({names!r})
_rt.state.config["eager"] = {eager!r}
if {jax_eager!r}:
    import jax as _jax
    _jax.config.update("jax_disable_jit", True)
"""

_FINISH = """\
import json as _json
_out = {{}}
try:
    _out["value"] = _rt.to_plain({entry}())
    if {expected!r}:
        _out["expected"] = _rt.to_plain(golden_expected())
except Exception as _e:
    _out["error"] = _rt.describe(_e)
_out["phiml_traces"] = sum(_rec.phiml_traces.values())
_out["jax_compiles"] = sum(_rec.jax_compiles.values())
_out["phiml_cache"] = max(_rec.phiml_cache.values(), default=0)
with open({path!r}, "w") as _f:
    _json.dump(_out, _f)
"""

_AFTER_ERROR = """\
import sys as _sys
_tb = _sys.modules.get("phiml.backend.torch._torch_backend")
if _tb is not None and hasattr(_tb, "CURRENT_JIT_CALLS"):
    _tb.CURRENT_JIT_CALLS.clear()
"""

_UNDO_EAGER = """\
import jax as _jax
_jax.config.update("jax_disable_jit", False)
"""


def run_notebooks(backend: str, framework: str, runs: list[NotebookRun], entry: str = "golden_run",
                  expected: bool = False, timeout: float = 600) -> dict[str, dict]:
    """label -> {"value" | "error", "phiml_traces", "jax_compiles", "phiml_cache"} for each run, in one kernel."""
    env = runtime.select_environment(backend if framework == "phiml" else None, eager=False)
    out: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="phiml-rewrite-nb-") as tmp:
        holder = new_notebook()
        client = NotebookClient(holder, kernel_name="python3", timeout=timeout, allow_errors=False,
                                resources={"metadata": {"path": tmp}})
        counter = iter(range(10**6))

        def run_cell(code: str) -> None:
            cell = new_code_cell(code)
            holder.cells.append(cell)
            client.execute_cell(cell, next(counter))

        with client.setup_kernel(env=env):
            run_cell(_SETUP.format(backend=backend if framework == "phiml" else None))
            for run in runs:
                result_path = os.path.join(tmp, f"{run.label}.json")
                jax_eager = run.eager and framework == "jax"
                run_cell(_START.format(names=sorted(function_names(run.source)), eager=run.eager, jax_eager=jax_eager))
                error = None
                notebook = nbformat.reads(run.source.decode("utf-8"), as_version=4)
                for cell in notebook.cells:
                    if cell.cell_type != "code":
                        continue
                    try:
                        run_cell(cell.source)
                    except CellExecutionError as e:
                        error = f"{e.ename}: {(e.evalue or '').splitlines()[0] if e.evalue else ''}"
                        break
                if error is None:
                    run_cell(_FINISH.format(entry=entry, expected=expected, path=result_path))
                    with open(result_path) as f:
                        out[run.label] = json.load(f)
                else:
                    out[run.label] = {"error": error}
                    run_cell(_AFTER_ERROR)
                if jax_eager:
                    run_cell(_UNDO_EAGER)
    return out
