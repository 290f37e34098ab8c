"""What the server knows about one notebook: findings per cell, and fixes as edits of cells.

An editor sends a notebook as a list of cell documents (LSP 3.17 notebook documents). The rules
must see the notebook as the CLI does, as one module of its Python code cells in order (a jit
def in one cell, its caller in another), so the cells are masked for IPython syntax and joined
exactly as rewriter/notebooks does for `.ipynb` files; the joined module is analysed like a buffer
(DocumentAnalysis), and its findings and fixes are cut back into the cells. No LSP types here.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from .. import config as _config
from ..analysis.facts import FileFacts
from ..findings import Finding
from ..notebooks import magics
from ..notebooks.cells import Joined, LineMap, join
from ..notebooks.process import analysed_cells, changed_cells
from .document import DocumentAnalysis, project_key
from .suppress import suppression_edit
from .textedits import TextEdit, minimal_edits


@dataclass(frozen=True)
class Cell:
    """One code cell of an open notebook, as the editor sends it."""
    key: str  # the cell document's URI
    index: int  # 1-based position among all cells of the notebook, as the CLI numbers them
    text: str


@dataclass
class NotebookAnalysis:
    """An open notebook's findings: its cells joined into one module, analysed, mapped back to cells."""
    cells: list[Cell]
    path: str
    analysis: DocumentAnalysis | None  # of the joined module; None: no cell could be analysed
    joined: Joined | None
    masked: dict[int, magics.Masked]
    findings: dict[str, list[Finding]] = field(default_factory=dict)  # cell key -> findings, spans in the cell
    left_out: dict[str, str] = field(default_factory=dict)  # cell key -> why it is not analysed
    _origin: dict[int, Finding] = field(default_factory=dict)  # id(cell finding) -> finding of the joined module
    project_key: str | None = None  # the digest of the project facts analysed with (document.project_key)

    @classmethod
    def of(cls, cells: list[Cell], path: str, config: _config.Config | None = None,
           project: FileFacts | None = None) -> "NotebookAnalysis":
        """`project`: what the project index says about the notebook from the other modules."""
        masked, why = analysed_cells((cell.index, cell.text) for cell in cells)
        left_out = {cell.key: why[cell.index] for cell in cells if cell.index in why}
        if not masked:
            return cls(cells, path, None, None, masked, left_out=left_out, project_key=project_key(project))
        joined = join([(index, m.text) for index, m in masked.items()])
        analysis = DocumentAnalysis.of(joined.source, path, config, cells=True, project=project)
        out = cls(cells, path, analysis, joined, masked, left_out=left_out, project_key=analysis.project_key)
        out._place_findings()
        return out

    @property
    def error(self) -> str | None:
        return None if self.analysis is None else self.analysis.error

    def _place_findings(self) -> None:
        positions = LineMap(self.joined.source)
        by_index = {cell.index: cell.key for cell in self.cells}
        self.findings = {cell.key: [] for cell in self.cells}
        for finding in self.analysis.findings:
            index, span = positions.in_cell(finding.span)
            placed = replace(finding, span=span, cell=index,  # the joined module's finding stays as it is
                             related=tuple(positions.place_related(r) for r in finding.related))
            self._origin[id(placed)] = finding
            self.findings[by_index[index]].append(placed)
        for found in self.findings.values():
            found.sort(key=lambda f: (f.span, f.code))

    # -- fixes ----------------------------------------------------------------------------------
    def has_fix(self, finding: Finding) -> bool:
        origin = self._origin.get(id(finding))
        return origin is not None and self.analysis.has_fix(origin)

    def fix_edits(self, finding: Finding) -> dict[str, list[TextEdit]] | None:
        """Cell key -> minimal edits of that cell, for this finding's fix alone; None: no fix to offer."""
        origin = self._origin.get(id(finding))
        if origin is None:
            return None
        return self._cell_edits(self.analysis.fixed_text(origin))

    def fix_all_edits(self) -> dict[str, list[TextEdit]]:
        """What `phiml-rewrite --in-place` would write into the notebook's cells."""
        if self.analysis is None:
            return {}
        return self._cell_edits(self.analysis.fix_all_text()) or {}

    def suppression_edit(self, key: str, finding: Finding) -> TextEdit | None:
        cell = next((c for c in self.cells if c.key == key), None)
        return None if cell is None else suppression_edit(cell.text, finding)

    def has_any_fix(self) -> bool:
        return any(self.has_fix(f) for found in self.findings.values() for f in found)

    def _cell_edits(self, fixed: str | None) -> dict[str, list[TextEdit]] | None:
        """The joined module `fixed`, cut into cells and unmasked, as edits of the cells it changes;
        None when it cannot be put back (a rewrite that moved a cell boundary or an IPython line)."""
        if fixed is None:
            return None
        changed = changed_cells(fixed, self.joined, self.masked)
        if isinstance(changed, str):
            return None
        out = {cell.key: minimal_edits(cell.text, changed[cell.index]) for cell in self.cells if cell.index in changed}
        return out or None


def notebook_bytes(cells: list[Cell]) -> bytes:
    """A notebook file with these code cells at their positions (other cells empty markdown), for the
    project index, which reads a `.ipynb` path as a notebook's bytes."""
    by_index = {cell.index: cell.text for cell in cells}
    out = []
    for index in range(1, max(by_index, default=0) + 1):
        if index in by_index:
            out.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                        "source": by_index[index]})
        else:
            out.append({"cell_type": "markdown", "metadata": {}, "source": ""})
    notebook = {"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook).encode("utf-8")
