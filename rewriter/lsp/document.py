"""What the server knows about one editor buffer: findings, and the edits of each fix (no LSP types).

A buffer is analysed as the file it will be saved as: the configuration is the one the CLI would
use for that path (the nearest pyproject.toml with our table, its per-file-ignores and excludes).
Every fix is proposed, unsafe ones too (the editor labels them); fix-all applies what the CLI
would apply with that configuration, through the same fixpoint, so it writes what the CLI writes.
"""
from __future__ import annotations

import io
import os
import tokenize
from dataclasses import dataclass, field

from .. import config as _config
from .. import files as _files
from ..analysis.facts import FileFacts
from ..engine import Pass, ProcessingError, Settings, process_source, report_pass
from ..findings import Finding, Safety
from ..runner import decode
from .suppress import suppression_edit
from .textedits import TextEdit, minimal_edits


@dataclass
class DocumentAnalysis:
    """An open buffer's findings, as the CLI would report them for its text."""
    text: str
    path: str  # the file the buffer belongs to (for untitled buffers: a name in the workspace)
    config: _config.Config
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None  # the file cannot be analysed: why (a syntax error while typing, ...)
    excluded: bool = False
    _pass: Pass | None = None
    _fix_edits: dict[int, list[TextEdit] | None] = field(default_factory=dict)
    _fix_all: list[TextEdit] | None = None

    cells: bool = False  # `text` is a notebook's code cells joined (rewriter/lsp/notebook.py)
    # What the project index says about this file from the other modules (rewriter/lsp/project.py);
    # None: analysed alone. Fix-all and provisional slices use the same facts.
    project: FileFacts | None = None
    project_key: str | None = None  # their digest: an analysis is reused only for the same text and facts
    world: object = None  # rewriter.project.world.World: what the file's project targets, who may call it

    @classmethod
    def of(cls, text: str, path: str, config: _config.Config | None = None, facts: tuple = (),
           cells: bool = False, project: FileFacts | None = None) -> "DocumentAnalysis":
        """`facts`: the parameter roles of an analysis of the whole buffer (`facts`), for a slice of it;
        `project`: the facts the project index has for the file."""
        if config is None:
            config = config_for(path)
        project = project or None
        doc = cls(text=text, path=path, config=config, cells=cells, project=project, project_key=project_key(project))
        if _files.is_excluded(path, exclude=config.exclude, extend_exclude=config.extend_exclude,
                              base=config.root, respect_gitignore=False):
            doc.excluded = True
            return doc
        doc.world = world_of(path, config)
        settings = Settings(codemods=config.codemods_for(path), unsafe_fixes=True, callsite_facts=facts, cells=cells,
                            project=project, world=doc.world)
        try:
            doc._pass = report_pass(encode(text), path, settings)
        except ProcessingError as e:
            doc.error = str(e)
            return doc
        except RecursionError:
            doc.error = "too deeply nested to process"
            return doc
        doc.findings = sorted(doc._pass.findings, key=lambda f: (f.span, f.code))
        return doc

    @property
    def facts(self) -> tuple:
        """What the calls in the whole buffer say about its jitted functions' parameters (see
        `Settings.callsite_facts`): a slice analysed provisionally may not contain those calls."""
        return self._pass.facts_found() if self._pass is not None else ()

    # -- one fix -------------------------------------------------------------------------------
    def has_fix(self, finding: Finding) -> bool:
        return self._pass is not None and self._pass.has_fix(finding)

    def fix_edits(self, finding: Finding) -> list[TextEdit] | None:
        """The minimal edits of this finding's fix alone; None if it has none (or it fails to apply)."""
        key = id(finding)
        if key not in self._fix_edits:
            fixed = self.fixed_text(finding)
            self._fix_edits[key] = None if fixed is None else minimal_edits(self.text, fixed)
        return self._fix_edits[key]

    def fixed_text(self, finding: Finding) -> str | None:
        """The buffer with this finding's fix alone; None if it has none (or it fails to apply)."""
        fix = self._pass.fix_for(finding) if self._pass is not None else None
        if fix is None:
            return None
        try:
            return self._pass.apply([fix])
        except ProcessingError:
            return None  # the fix would not parse: a bug, never offered

    def unsafe(self, finding: Finding) -> bool:
        return finding.fix is not None and finding.fix.safety is Safety.UNSAFE

    # -- all fixes -----------------------------------------------------------------------------
    def fix_all_edits(self) -> list[TextEdit]:
        """What `phiml-rewrite --in-place` would write for this buffer, as minimal edits."""
        if self._fix_all is None:
            fixed = self.fix_all_text()
            self._fix_all = [] if fixed is None else minimal_edits(self.text, fixed)
        return self._fix_all

    def fix_all_text(self) -> str | None:
        """What `phiml-rewrite --in-place` would write for this buffer; None: nothing."""
        if self._pass is None or not self._pass.has_fixes:
            return None
        settings = Settings(codemods=self.config.codemods_for(self.path), unsafe_fixes=self.config.unsafe_fixes,
                            cells=self.cells, project=self.project, world=self.world)
        result = process_source(encode(self.text), self.path, settings)
        if result.new_source is None or result.error:
            return None
        return decode(result.new_source)

    def suppression_edit(self, finding: Finding) -> TextEdit | None:
        return suppression_edit(self.text, finding)


def project_key(facts: FileFacts | None) -> str | None:
    return facts.digest() if facts else None


def config_for(path: str) -> _config.Config:
    """The CLI's configuration for `path` (ConfigError propagates: the server shows it)."""
    return _config.load([path], cwd=os.path.dirname(os.path.abspath(path)))


def encode(text: str) -> bytes:
    """The bytes the buffer will be saved as: its coding cookie's encoding, else UTF-8."""
    raw = text.encode("utf-8", errors="surrogatepass")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError:
        return raw
    if encoding in ("utf-8", "utf-8-sig"):
        return raw
    try:
        return text.encode(encoding)
    except (LookupError, UnicodeEncodeError):
        return raw  # the parser names the problem


_WORLDS: dict = {}


def world_of(path: str, config: _config.Config):
    """The file's World (rewriter/project/world.py), read by one reader per configuration: an editor asks
    for every keystroke, and the project's declarations are read once per folder."""
    from ..project.world import WorldReader

    key = (config.root, config.project_root, config.target_versions, config.python)
    reader = _WORLDS.get(key)
    if reader is None:
        reader = _WORLDS[key] = WorldReader(config.target_setting())
    return reader(path, config.project_root)
