"""What the server knows about one notebook: findings per cell, and fixes as edits of cells.

An editor sends a notebook as a list of cell documents (LSP 3.17 notebook documents). The rules
must see the notebook as the CLI does, as one module of its Python code cells in order (a jit
def in one cell, its caller in another), so the cells are masked for IPython syntax and joined
exactly as rewriter/notebooks does for `.ipynb` files; the joined module is analysed like a buffer
(DocumentAnalysis), and its findings and fixes are cut back into the cells. No LSP types here.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from .. import config as _config
from ..findings import Finding, Span
from ..notebooks import magics
from ..notebooks.cells import Joined, LineMap, has_marker, join, split
from .document import DocumentAnalysis
from .suppress import suppression_edit
from .textedits import TextEdit, minimal_edits


@dataclass(frozen=True)
class Cell:
    key: str  # the cell document's URI
    index: int  # 1-based position among all cells of the notebook, as the CLI numbers them
    text: str


@dataclass
class NotebookAnalysis:
    cells: list[Cell]
    path: str
    analysis: DocumentAnalysis | None  # of the joined module; None: no cell could be analysed
    joined: Joined | None
    masked: dict[int, magics.Masked]
    findings: dict[str, list[Finding]] = field(default_factory=dict)  # cell key -> findings, spans in the cell
    left_out: dict[str, str] = field(default_factory=dict)  # cell key -> why it is not analysed
    _origin: dict[int, Finding] = field(default_factory=dict)  # id(cell finding) -> finding of the joined module

    @classmethod
    def of(cls, cells: list[Cell], path: str, config: _config.Config | None = None) -> "NotebookAnalysis":
        masked: dict[int, magics.Masked] = {}
        left_out: dict[str, str] = {}
        for cell in cells:
            m = magics.mask(cell.text)
            if m is None:
                left_out[cell.key] = "a cell magic whose body is not Python"
                continue
            if has_marker(m.text):
                left_out[cell.key] = "it holds the comment phiml-rewrite marks cells with"
                continue
            try:
                compile(m.text, path, "exec", dont_inherit=True, flags=0x400)  # PyCF_ONLY_AST: a parse, no code
            except SyntaxError as e:
                left_out[cell.key] = f"syntax error at line {e.lineno}: {e.msg}"
                continue
            except (ValueError, RecursionError, MemoryError):
                left_out[cell.key] = "cannot be parsed"
                continue
            masked[cell.index] = m
        if not masked:
            return cls(cells, path, None, None, masked, left_out=left_out)
        joined = join([(index, m.text) for index, m in masked.items()])
        analysis = DocumentAnalysis.of(joined.source, path, config, cells=True)
        out = cls(cells, path, analysis, joined, masked, left_out=left_out)
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
            index, line = positions.cell_line(finding.span.line)
            end_index, end_line = positions.cell_line(finding.span.end_line)
            span = Span(line, finding.span.column, end_line if end_index == index else line, finding.span.end_column)
            placed = replace(finding, span=span, cell=index)
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
        texts = split(fixed, self.joined)
        if texts is None:
            return None
        out: dict[str, list[TextEdit]] = {}
        for cell in self.cells:
            if cell.index not in texts or texts[cell.index] == self.masked[cell.index].text:
                continue
            restored = magics.unmask(texts[cell.index], self.masked[cell.index])
            if restored is None:
                return None
            out[cell.key] = minimal_edits(cell.text, restored)
        return out or None
