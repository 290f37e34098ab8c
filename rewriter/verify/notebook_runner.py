"""python -m _phiml_rewrite_notebook NOTEBOOK: run a notebook top to bottom in a real Jupyter kernel.

`verify` and `profile` run programs as commands; a notebook's command is this. It executes the
notebook with nbclient in a kernel of this interpreter (ipykernel's own kernel, whatever kernel the
notebook names: the backends are installed here). The kernel inherits this process's environment,
so the verify runtime's `sitecustomize` installs itself in the kernel as in any Python process of a
verified command (backend, eager mode, trace counts); a first cell, not part of the notebook, lets
the runtime instrument the notebook's cells, and a last one writes the records. Nothing is written
to the notebook. Exit 0 when every cell ran; 1 when one raised (its cell and error are printed).
This module is copied next to the runtime, like the pytest plugin: it imports only nbclient/nbformat.
"""
from __future__ import annotations

import os
import sys

RUNTIME = "_phiml_rewrite_verify"
TIMEOUT = float(os.environ.get("PHIML_REWRITE_CELL_TIMEOUT", "900"))


def main(path: str) -> int:
    import shutil
    import tempfile

    import nbformat
    from jupyter_client import AsyncKernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    from nbclient.util import run_sync

    notebook = nbformat.read(path, as_version=4)
    absolute = os.path.abspath(path)
    numbered = [(i + 1, cell) for i, cell in enumerate(notebook.cells)]
    setup = nbformat.v4.new_code_cell(f"import {RUNTIME} as __phiml_rewrite__\n"
                                      f"__phiml_rewrite__.instrument_notebook(get_ipython(), {absolute!r})\n"
                                      "get_ipython().run_line_magic('colors', 'nocolor')  # plain tracebacks in the report")
    finish = nbformat.v4.new_code_cell("__phiml_rewrite__.flush()")
    code_cells = [(index, cell) for index, cell in numbered if cell.cell_type == "code"]
    notebook.cells = [setup, *[cell for _, cell in code_cells], finish]
    # IPC sockets: the kernel is local, and over TCP it warns about the unencrypted transport. An
    # asynchronous manager, as nbclient makes its own: with a blocking one its cell timeout never fires.
    sockets = tempfile.mkdtemp()  # (a short path: a socket's path has a length limit)
    manager = AsyncKernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "kernel"))
    client = NotebookClient(notebook, km=manager, timeout=TIMEOUT, allow_errors=False,
                            resources={"metadata": {"path": os.path.dirname(absolute)}})
    current = 0
    try:
        with client.setup_kernel():
            try:
                for current, cell in enumerate(notebook.cells):
                    client.execute_cell(cell, current)
            except (CellExecutionError, CellTimeoutError, DeadKernelError) as e:
                if 0 < current <= len(code_cells):
                    where = f"cell {code_cells[current - 1][0]}"
                else:
                    where = "the runtime's set-up" if current == 0 else "the runtime's last cell"
                # a timeout or a dead kernel is the cell's failure too: no Python error inside the kernel
                name, value = getattr(e, "ename", type(e).__name__), getattr(e, "evalue", None) or str(e)
                print(_traceback(str(e)), file=sys.stderr)
                print(f"{path}: {where} raised {name}: {value.splitlines()[0] if value else ''}", file=sys.stderr)
                if isinstance(e, CellExecutionError):
                    try:
                        client.execute_cell(finish, len(notebook.cells) - 1)  # the records of the cells that ran
                    except (CellExecutionError, CellTimeoutError, DeadKernelError):
                        pass
                return 1
    finally:
        try:
            if manager.has_kernel:  # a kernel manager given to nbclient is ours to shut down
                # Asked to exit, not killed: the kernel's exit handlers run (tensorflow's autograph removes
                # the modules it wrote to the temporary directory, 157 files for the demo notebook); one
                # that does not exit within jupyter_client's wait is killed all the same.
                run_sync(manager.shutdown_kernel)(now=False)
        finally:
            shutil.rmtree(sockets, ignore_errors=True)
    return 0


def _traceback(text: str) -> str:
    """nbclient's error text without the echo of the cell's code that precedes the traceback."""
    head, sep, rest = text.partition("------------------\n\n")
    return (rest if sep else text)[-3000:]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m _phiml_rewrite_notebook NOTEBOOK", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
