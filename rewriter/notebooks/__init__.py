"""Jupyter notebooks (`.ipynb`): read as Jupyter reads them, analysed as one module of their code
cells, written back cell by cell (only the changed cells' `source`). `process_notebook` is
engine.process_source for a notebook's bytes.

The names that need the engine (and libcst) are imported when first asked for: a warm run, served
from the cache, only asks `is_notebook`."""
from __future__ import annotations

import importlib

SUFFIX = ".ipynb"
_LAZY = {"LineMap": ".cells", "cell_diffs": ".diff", "module_of": ".process", "process_notebook": ".process",
         "NotebookError": ".reading"}


def is_notebook(path: str) -> bool:
    return path.lower().endswith(SUFFIX)


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(name)
    return getattr(importlib.import_module(module, __name__), name)


__all__ = ["SUFFIX", "LineMap", "NotebookError", "cell_diffs", "is_notebook", "module_of", "process_notebook"]
