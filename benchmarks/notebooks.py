"""Checking a 50-cell notebook, against checking the same code as a `.py` file in the same process.

The notebook is generated: 50 cells of the shapes research notebooks have (imports, markdown,
jitted steps with traced and static control flow, training loops that build jit wrappers, solver
calls with lambdas, magics and shell escapes, plots). The reference is its code cells joined into one
`.py` module (IPython lines masked), so the ratio is what notebook support itself costs: reading and
validating the JSON, masking, joining, mapping positions back, and writing the cells.

    python -m benchmarks notebooks
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._common import cli_command

CELLS = 50
TEMPLATES = [
    "# md ## Step {i}\nThe update below is jitted; its condition depends on the data.",
    "@math.jit_compile\ndef step_{i}(x, dt):\n    if (x > 1).any:\n        y = x * 0.5\n    else:\n        y = -x\n    return y + dt",
    "%time v_{i} = math.random_normal(spatial(x=64))\n!echo cell {i}",
    "def loss_{i}(params, batch):\n    return jnp.mean((batch @ params - 1.0) ** 2)\n\n\nfor _ in range(3):\n"
    "    params = jax.jit(lambda p, b: p - 0.1 * jax.grad(loss_{i})(p, b))(params, batch)",
    "def diffuse_{i}(u, dt):\n    return math.solve_linear(math.jit_compile_linear(lambda x: x - dt * math.laplace(x)), u,\n"
    "                             Solve('CG', 1e-5, 1e-5, x0=u))",
    "@math.jit_compile\ndef pad_{i}(x, scale=None):\n    if x.shape.get_size('x') < 4:\n        x = math.pad(x, {{'x': (0, 1)}}, 0)\n"
    "    if scale is None:\n        return x\n    return x * scale",
    "%%capture\nfor k in range(3):\n    print(k, step_{j}(v_{k}, 0.1))",
    "plt.plot(np.arange(10) * {i})\nplt.title('run {i}')",
]
HEADER = "%matplotlib inline\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\nimport matplotlib.pyplot as plt\n" \
         "from phiml import math\nfrom phiml.math import spatial, Solve\nparams = jnp.zeros(3)\nbatch = jnp.ones((8, 3))"


def notebook_bytes(cells: int = CELLS) -> bytes:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [new_code_cell(HEADER)]
    for i in range(1, cells):
        text = TEMPLATES[i % len(TEMPLATES)].format(i=i, j=max(1, i - 5) // 8 * 8 + 1, k=max(2, i - 4) // 8 * 8 + 2)
        nb.cells.append(new_markdown_cell(text[5:]) if text.startswith("# md ") else new_code_cell(text))
    for n, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{n}"
    return nbformat.writes(nb).encode()


def _median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run(repeats: int = 7) -> dict:
    from rewriter.engine import Settings, process_source
    from rewriter.notebooks import cells, magics, process_notebook, reading
    from rewriter.registry import all_codemods

    source = notebook_bytes()
    notebook = reading.read(source)
    joined = cells.join([(c.index, m.text) for c in notebook.cells if (m := magics.mask(c.code)) is not None])
    as_module = joined.source.encode()
    settings = {"check": Settings(all_codemods(), original_positions=True), "fix": Settings(all_codemods(), unsafe_fixes=True)}
    out: dict = {"cells": len(notebook.data["cells"]), "code_cells": len(notebook.cells), "lines": joined.source.count("\n")}
    ok = True
    for mode, s in settings.items():
        result = process_notebook(source, "bench.ipynb", s)
        ok &= result.error is None and bool(result.findings)
        out[f"{mode}_findings"] = len(result.findings)
        nb_s = _median_seconds(lambda: process_notebook(source, "bench.ipynb", s), repeats)
        py_s = _median_seconds(lambda: process_source(as_module, "bench.py", s), repeats)
        out[mode] = {"notebook_ms": round(nb_s * 1000, 1), "module_ms": round(py_s * 1000, 1), "ratio": round(nb_s / py_s, 3)}
    cmd = cli_command()
    if cmd is not None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.ipynb"
            path.write_bytes(source)
            t0 = time.perf_counter()
            proc = subprocess.run([*cmd, "--no-cache", "--check", str(path)], capture_output=True, text=True)
            out["cli_check_s"] = round(time.perf_counter() - t0, 2)
            ok &= proc.returncode == 1
    out["ok"] = bool(ok)
    return out


def report(res: dict) -> str:
    lines = [f"a {res['cells']}-cell notebook ({res['code_cells']} code cells, {res['lines']} lines), "
             "against its code as one .py module:"]
    for mode in ("check", "fix"):
        r = res[mode]
        lines.append(f"  {mode:5}: notebook {r['notebook_ms']} ms, module {r['module_ms']} ms, ratio {r['ratio']} "
                     f"({res[mode + '_findings']} findings)")
    if "cli_check_s" in res:
        lines.append(f"  `phiml-rewrite --check` on it, start-up included: {res['cli_check_s']} s")
    return "\n".join(lines)


if __name__ == "__main__":
    res = run()
    print(report(res))
    sys.exit(0 if res["ok"] else 1)
