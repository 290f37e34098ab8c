"""Jupyter notebooks (`.ipynb`): read with nbformat, analysed as one module of their code cells,
written back cell by cell. `process_notebook` is engine.process_source for a notebook's bytes."""
from __future__ import annotations

from .diff import cell_diffs
from .process import process_notebook

SUFFIX = ".ipynb"


def is_notebook(path: str) -> bool:
    return path.lower().endswith(SUFFIX)


__all__ = ["SUFFIX", "cell_diffs", "is_notebook", "process_notebook"]
