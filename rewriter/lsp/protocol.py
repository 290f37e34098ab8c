"""Findings and text edits as LSP types, positions in the encoding the client negotiated (UTF-16 by default)."""
from __future__ import annotations

import bisect
import io
import os
import pathlib
from functools import lru_cache

from lsprotocol import types
from pygls.workspace import PositionCodec
from pygls.workspace.position_codec import ServerTextPosition

from .. import __version__, registry
from ..findings import Finding, Related, Severity
from .textedits import TextEdit

SOURCE = "phiml-rewrite"
FIX_ALL_KIND = "source.fixAll.phiml-rewrite"
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


class Positions:
    """Character offsets and libcst positions of one text, in the client's units.

    Lines end at \\n, \\r\\n or \\r, as the LSP says (str.splitlines also splits at form feeds and
    other separators, which would shift every following line in the editor).
    """

    def __init__(self, text: str, codec: PositionCodec) -> None:
        self.lines = io.StringIO(text, newline="").readlines()
        self.codec = codec
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def at_offset(self, offset: int) -> types.Position:
        line = max(0, bisect.bisect_right(self.starts, offset) - 1)
        if line >= len(self.lines):  # the end of a text that ends with a newline
            return types.Position(line=len(self.lines), character=0)
        return self._client(line, offset - self.starts[line])

    def at(self, line: int, column: int) -> types.Position:
        """A libcst position: 1-based line, 0-based column in characters."""
        if line - 1 >= len(self.lines):
            return types.Position(line=len(self.lines), character=0)
        return self._client(line - 1, column)

    def _client(self, line: int, character: int) -> types.Position:
        return self.codec.position_to_client_units(self.lines, ServerTextPosition(line, character))

    def text_edit(self, edit: TextEdit) -> types.TextEdit:
        return types.TextEdit(range=types.Range(self.at_offset(edit.start), self.at_offset(edit.end)), new_text=edit.text)


def finding_key(finding: Finding) -> list:
    """What a diagnostic carries back in code-action requests to find its finding again."""
    s = finding.span
    return [finding.code, s.line, s.column, s.end_line, s.end_column]


def diagnostic(finding: Finding, positions: Positions, uri: str = "",
               cell_uris: dict[int, str] | None = None) -> types.Diagnostic:
    """`uri`: the document's; `cell_uris`: in a notebook, each cell's document, for related places."""
    s = finding.span
    related = [(r, where) for r in finding.related
               if (where := _location(r, finding, positions, uri, cell_uris or {})) is not None]
    return types.Diagnostic(
        range=types.Range(positions.at(s.line, s.column), positions.at(s.end_line, s.end_column)),
        message=diagnostic_message(finding),
        related_information=[types.DiagnosticRelatedInformation(location=where, message=r.message)
                             for r, where in related] or None,
        severity=_SEVERITY[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=rule_page(finding.code)),
        source=SOURCE,
        data={"key": finding_key(finding), "fix": None if finding.fix is None else finding.fix.safety.value},
    )


def fix_title(finding: Finding) -> str:
    """The quick fix's title: the fix's description, capitalised (`Swap to jit(vmap(f))`)."""
    text = finding.fix.description or "apply the fix"
    return text[:1].upper() + text[1:]


def diagnostic_message(finding: Finding) -> str:
    """The message and its note; the fix title is the quick fix's, or a `help:` line when there is none."""
    lines = [finding.message]
    if finding.note:
        lines.append(f"note: {finding.note}")
    if finding.fix is None and finding.hint:
        lines.append(f"help: {finding.hint}")
    return "\n".join(lines)


def _location(related: Related, finding: Finding, positions: Positions, uri: str,
              cell_uris: dict[int, str]) -> types.Location | None:
    """Where a related place is, for the client; in another document its columns are taken as they are."""
    if related.cell is not None:
        target, here = cell_uris.get(related.cell), related.cell == finding.cell
    elif related.path is not None:
        target, here = pathlib.Path(os.path.abspath(related.path)).as_uri(), False
    else:
        target, here = uri, True
    if not target:
        return None
    s = related.span
    if here:
        start, end = positions.at(s.line, s.column), positions.at(s.end_line, s.end_column)
    else:
        start, end = types.Position(s.line - 1, s.column), types.Position(s.end_line - 1, s.end_column)
    return types.Location(uri=target, range=types.Range(start, end))


@lru_cache(maxsize=None)
def rule_page(code: str) -> str:
    """A `file://` URI of the rule's `phiml-rewrite explain CODE` page, written once per version.

    Editors open a diagnostic's code link; a local page works offline and always matches the
    installed rules.
    """
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = pathlib.Path(root) / "phiml-rewrite" / "rules" / __version__
    page = folder / f"{code}.md"
    try:
        if not page.exists():
            folder.mkdir(parents=True, exist_ok=True)
            tmp = page.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(registry.by_code(code).explain(), encoding="utf-8")
            os.replace(tmp, page)
    except OSError:
        pass  # a read-only home: the link is still well-formed, the page is `phiml-rewrite explain CODE`
    return page.as_uri()
