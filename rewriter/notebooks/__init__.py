"""Jupyter notebooks (`.ipynb`): read with nbformat, analysed as one module of their code cells,
written back cell by cell. `process_notebook` is engine.process_source for a notebook's bytes."""
from __future__ import annotations

from .cells import LineMap
from .diff import cell_diffs
from .process import module_of, process_notebook
from .reading import NotebookError

SUFFIX = ".ipynb"


def is_notebook(path: str) -> bool:
    return path.lower().endswith(SUFFIX)


__all__ = ["SUFFIX", "LineMap", "NotebookError", "cell_diffs", "is_notebook", "module_of", "process_notebook"]
