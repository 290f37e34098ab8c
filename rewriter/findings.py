"""The Finding / Fix / Safety model, and how findings are printed (text, json, github, sarif).

Everything a codemod says about a file is a Finding; whether its Fix was applied depends on the
fix's Safety and on what the user asked for, never on the codemod itself.
"""
from __future__ import annotations

import enum
import json
import os
from dataclasses import asdict, dataclass, field
from typing import Iterable, Sequence


class Safety(str, enum.Enum):
    """How much a fix can be trusted, in the meaning Ruff gives the words."""

    SAFE = "safe"  # cannot change behaviour: applied by default
    UNSAFE = "unsafe"  # may change behaviour in edge cases: applied only with --unsafe-fixes
    DISPLAY = "display"  # shown as a suggestion, never applied


class Severity(str, enum.Enum):
    ERROR = "error"  # the code fails or computes a wrong result on some backend
    WARNING = "warning"  # the code is slow, leaks memory or re-traces
    INFO = "info"


@dataclass(frozen=True, order=True)
class Span:
    """A source range: lines are 1-based, columns 0-based (libcst's CodeRange convention)."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Related:
    """Another place a finding refers to (where a value was assigned, the call that passes it): the
    LSP's relatedInformation and SARIF's relatedLocations. A place, not a line number in the message:
    editors keep it current as the text moves."""

    span: Span
    message: str
    path: str | None = None  # None: the finding's own file; another file's is absolute (results are cached)
    cell: int | None = None  # in a notebook: the cell of `span`, as Finding.cell

    @staticmethod
    def line_of(path: str, line: int, message: str) -> "Related":
        """A line of another file (the project index keeps lines, not columns), by its absolute path."""
        return Related(Span(line, 0, line, 0), message, path=os.path.abspath(path))

    @property
    def shown_path(self) -> str:
        """Another file's path as output shows it: relative to the working directory, if it is below it."""
        if self.path is None or not os.path.isabs(self.path):
            return self.path or ""
        relative = os.path.relpath(self.path)
        return self.path if relative.startswith("..") else relative

    @property
    def where(self) -> str:
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{cell}{self.span.line}:{self.span.column + 1}"


@dataclass(frozen=True)
class Fix:
    """How safe a finding's fix is and what it does: a run applies an unsafe one only with `--unsafe-fixes`."""
    safety: Safety
    description: str


@dataclass
class Finding:
    """One reported problem: its rule, place and message, and the fix it offers (`applied`: written)."""
    code: str
    name: str
    message: str
    path: str
    span: Span
    severity: Severity = Severity.WARNING
    fix: Fix | None = None
    applied: bool = False  # the fix was written into the output
    cell: int | None = None  # in a notebook: the cell (1-based, among all cells); `span` is in that cell
    # For a finding without an automatic fix, the fix by hand (`help:`); with one, the fix's description is.
    hint: str = ""
    note: str = ""  # why there is no automatic fix here (`not hoisted: ...`), or a caveat of the one there is
    related: tuple[Related, ...] = ()

    @property
    def help(self) -> str:
        """The fix title: what the automatic fix does, or what to do by hand (`help:` in text output)."""
        return self.fix.description if self.fix is not None else self.hint

    @property
    def where(self) -> str:
        """`path:line:col`, or `path:cell N:line:col` in a notebook (Ruff's convention)."""
        s = self.span
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{s.line}:{s.column + 1}"

    @property
    def fixable(self) -> bool:
        return self.fix is not None and self.fix.safety is not Safety.DISPLAY

    def to_dict(self) -> dict:
        data = asdict(self)
        data["severity"] = self.severity.value
        data["fix"] = None if self.fix is None else {"safety": self.fix.safety.value, "description": self.fix.description}
        data["help"] = self.help
        # A related place's path: null for the finding's own file, else absolute.
        data["related"] = [{"span": asdict(r.span), "message": r.message, "path": r.path, "cell": r.cell}
                           for r in self.related]
        return data

    @staticmethod
    def from_dict(data: dict, path: str) -> "Finding":
        """The inverse of to_dict (the result cache), with the path given."""
        fix = data["fix"]
        related = tuple(Related(Span(**r["span"]), r["message"], r["path"], r.get("cell"))
                        for r in data.get("related", ()))
        return Finding(code=data["code"], name=data["name"], message=data["message"], path=path, span=Span(**data["span"]),
                       severity=Severity(data["severity"]), applied=data["applied"],
                       fix=None if fix is None else Fix(Safety(fix["safety"]), fix["description"]),
                       cell=data.get("cell"), hint=data.get("hint", ""), note=data.get("note", ""), related=related)


@dataclass
class FileResult:
    """What processing one file produced; `new_source` is None when nothing changes."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    old_source: bytes | None = None
    new_source: bytes | None = None
    error: str | None = None
    skipped: bool = False  # pre-filter proved there is nothing to find
    cached: bool = False  # served from the result cache (rewriter.cache), not computed in this run
    libcst_parsed: bool = False  # parsed by libcst in this run (its rules are not all decided on `ast`)
    notes: list[str] = field(default_factory=list)  # how the file was read, when it matters (newer syntax)
    # A run that does not compute the rewrite (engine.Settings.rewrite): an enabled fix would change the file.
    would_change: bool = False

    @property
    def changed(self) -> bool:
        return self.would_change or self.new_source is not None and self.new_source != self.old_source

    @property
    def remaining(self) -> list[Finding]:
        return [f for f in self.findings if not f.applied]

    def applied_codes(self) -> list[str]:
        """`PML201:12` for each fix written into the file (machine-readable output)."""
        return [f"{f.code}:{f.span.line}" for f in self.findings if f.applied]

    def wrote(self) -> str:
        """`path: wrote 2 fixes`, as the commands that write fixes say it."""
        fixed = sum(1 for f in self.findings if f.applied)
        return f"{self.path}: wrote {fixed} fix{'es' if fixed != 1 else ''}"


def _fix_marker(finding: Finding) -> str:
    if finding.applied:
        return "[fixed] "
    if finding.fix is None:
        return ""
    return {"safe": "[*] ", "unsafe": "[unsafe fix] ", "display": "[suggestion] "}[finding.fix.safety.value]


def format_text(finding: Finding) -> str:
    """The finding's line, then indented: `help:` (the fix title), `note:`, and each related place."""
    lines = [f"{finding.where}: {finding.code} {_fix_marker(finding)}{finding.message}"]
    lines += [f"  {label}: {text}" for label, text in _help_and_note(finding)]
    for r in finding.related:
        lines.append(f"  {r.shown_path or finding.path}:{r.where}: {r.message}")
    return "\n".join(lines)


def one_line(finding: Finding) -> str:
    """Message, fix title and note in one line, for surfaces with one text field (GitHub annotations)."""
    return finding.message + "".join(f" ({label}: {text})" for label, text in _help_and_note(finding))


def _help_and_note(finding: Finding) -> list[tuple[str, str]]:
    """What output adds to the message: the fix title (not once the fix is written) and the note."""
    out = [("help", finding.help)] if finding.help and not finding.applied else []
    return out + ([("note", finding.note)] if finding.note else [])


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(finding: Finding) -> str:
    """GitHub Actions workflow command: shows the finding as an annotation on the PR diff."""
    s = finding.span
    level = {"error": "error", "warning": "warning", "info": "notice"}[finding.severity.value]
    # GitHub has no place for a cell: the line is the cell's, and the message says which cell.
    text = one_line(finding)
    message = _escape_data(f"cell {finding.cell}: {text}" if finding.cell is not None else text)
    title = _escape_property(f"{finding.code} ({finding.name})")
    return (
        f"::{level} title={title},file={_escape_property(finding.path)},line={s.line},col={s.column + 1},"
        f"endLine={s.end_line},endColumn={s.end_column + 1}::{message}"
    )


def format_json(results: Sequence[FileResult], summary: dict) -> str:
    return json.dumps(
        {
            "findings": [f.to_dict() for r in results for f in r.findings],
            "errors": [{"path": r.path, "message": r.error} for r in results if r.error],
            "notes": [{"path": r.path, "message": note} for r in results for note in r.notes],
            "changed_files": [r.path for r in results if r.changed and not r.error],
            "summary": summary,
        },
        indent=2,
    )


def _uri(path: str) -> str:
    """A valid URI reference: percent-encoded relative path, or a file:// URI for absolute ones."""
    import pathlib
    from urllib.parse import quote

    if os.path.isabs(path):
        return pathlib.Path(path).as_uri()
    return quote(path.replace(os.sep, "/"), safe="/")


def _sarif_place(path: str, s: Span) -> dict:
    """A SARIF physicalLocation: the file and the region, columns 1-based."""
    return {"artifactLocation": {"uri": _uri(path)},
            "region": {"startLine": s.line, "startColumn": s.column + 1, "endLine": s.end_line, "endColumn": s.end_column + 1}}


def _sarif_related(i: int, r: Related, path: str) -> dict:
    return {"id": i, "message": {"text": f"cell {r.cell}: {r.message}" if r.cell is not None else r.message},
            "physicalLocation": _sarif_place(r.path or path, r.span)}


def format_sarif(results: Sequence[FileResult], rules: Iterable) -> str:
    """SARIF 2.1.0, the format GitHub code scanning and most CI dashboards ingest."""
    from . import __version__

    rules = list(rules)
    index = {r.CODE: i for i, r in enumerate(rules)}
    level = {"error": "error", "warning": "warning", "info": "note"}
    sarif_results = []
    for r in results:
        for f in r.findings:
            if f.applied:
                continue
            sarif_results.append(
                {
                    "ruleId": f.code,
                    "ruleIndex": index.get(f.code, -1),
                    "level": level[f.severity.value],
                    "message": {"text": f"cell {f.cell}: {one_line(f)}" if f.cell is not None else one_line(f)},
                    "locations": [{"physicalLocation": _sarif_place(f.path, f.span)}],
                    **({"relatedLocations": [_sarif_related(i, r, f.path) for i, r in enumerate(f.related)]}
                       if f.related else {}),
                    # SARIF regions have no cell: the lines are the cell's, and the cell is a property.
                    **({"properties": {"cell": f.cell}} if f.cell is not None else {}),
                }
            )
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "phiml-rewrite",
                        "version": __version__,
                        "rules": [
                            {
                                "id": r.CODE,
                                "name": r.NAME,
                                "shortDescription": {"text": r.SUMMARY},
                                "fullDescription": {"text": r.documentation()},
                                "properties": {"fix-safety": r.SAFETY.value},
                            }
                            for r in rules
                        ],
                    }
                },
                "results": sarif_results,
            }
        ],
    }
    return json.dumps(doc, indent=2)
