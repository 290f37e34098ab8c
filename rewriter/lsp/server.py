"""The pygls language server: diagnostics on open/change/save, quick fixes, fix-all, suppressions.

Analyses run on one worker thread, so the event loop keeps answering while a file is analysed.
Changes are debounced: a change arriving within `debounce` of the previous one cancels its
pending analysis, and a result is only published if the buffer is still at the version analysed.

Every analysis gets what the project index says about its file from the other modules (rewriter/lsp/
project.py); the index takes a buffer's text before its exact analysis, and the other open documents
whose facts that changes are analysed again.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import logging
import os
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from .. import files as _files
from ..analysis.facts import FileFacts
from ..config import Config, ConfigError
from ..findings import Finding
from . import protocol
from . import verify as _verify
from .document import DocumentAnalysis, config_for, encode, project_key
from .incremental import provisional_findings
from .notebook import Cell as NotebookCell
from .notebook import NotebookAnalysis, notebook_bytes
from .project import Projects
from .textedits import TextEdit

log = logging.getLogger(__name__)
DEFAULT_DEBOUNCE = 0.025  # seconds between the last keystroke and an analysis (coalesces bursts)
SETTLED = "phiml-rewrite/settled"  # a notification: {"uri", "version"} whose findings are final
DEFAULT_IDLE = 0.3  # seconds without a keystroke before a whole file is analysed after a provisional result


def _settle_garbage() -> None:
    """Move what survives an analysis out of the collector's way.

    A buffer's syntax tree and metadata stay alive between keystrokes (hundreds of thousands of
    objects): without this every collection of the oldest generation walks them all, which doubles
    the time of a provisional analysis. What the previous analysis left is collected first.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()


class PhimlLanguageServer(LanguageServer):
    def __init__(self) -> None:
        # Notebooks: Jupyter notebooks' Python cells, as LSP 3.17 notebook documents (rewriter/lsp/notebook.py).
        notebooks = types.NotebookDocumentSyncOptions(
            notebook_selector=[types.NotebookDocumentFilterWithCells(
                cells=[types.NotebookCellLanguage(language="python")], notebook="jupyter-notebook")],
            save=True,
        )
        super().__init__("phiml-rewrite", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=notebooks)
        self.debounce = DEFAULT_DEBOUNCE
        self.idle = DEFAULT_IDLE
        self.incremental = True
        self.python: set[str] = set()  # open buffers that are Python (others are not analysed)
        self.analyses: dict[str, DocumentAnalysis] = {}  # the last exact analysis of each open buffer
        self._published: dict[str, tuple[int | None, list]] = {}
        self._pending: dict[str, asyncio.Task] = {}
        # Two threads: a provisional analysis of an edited function never waits behind an exact
        # analysis of a whole file that a later keystroke already made stale. Both parse with libcst, which
        # is imported here, before either runs: the rules import it where they first use it
        # (rewriter/lazy_libcst.py), and two threads importing one package's modules at once can deadlock.
        import libcst  # noqa: F401

        self._fast = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="phiml-fast")
        self._exact = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="phiml-exact")
        self._shown_errors: set[str] = set()
        self.notebook_analyses: dict[str, NotebookAnalysis] = {}  # the last analysis of each open notebook
        self._notebook_published: dict[str, set[str]] = {}  # notebook -> cells that were sent diagnostics
        self.projects = Projects(changed=self._facts_changed, built=self._index_built)
        self.verifier = _verify.Verifier()  # "verify this fix": its thread and the verdicts shown

    # -- analysing ---------------------------------------------------------------------------
    def path_of(self, uri: str) -> str:
        path = to_fs_path(uri)
        if path:
            return path
        root = self.workspace.root_path or os.getcwd()  # untitled buffers: configured as if in the workspace
        return os.path.join(root, uri.rsplit("/", 1)[-1].rsplit(":", 1)[-1] or "untitled.py")

    def config_of(self, path: str) -> Config:
        try:
            return config_for(path)
        except ConfigError as e:
            self._show_once(f"phiml-rewrite: {e} (using the default settings)")
            return Config(root=os.path.dirname(path))

    def _analyse(self, text: str, path: str, config: Config, project: FileFacts | None) -> DocumentAnalysis:
        analysis = DocumentAnalysis.of(text, path, config, project=project)
        _settle_garbage()
        return analysis

    async def analysis(self, uri: str) -> DocumentAnalysis | None:
        """The exact analysis of the buffer as it is now (cached per text and project facts)."""
        text = self.workspace.get_text_document(uri).source
        path = self.path_of(uri)
        config = self.config_of(path)
        project = await self.project_facts(uri, path, config, lambda: encode(text))
        cached = self.analyses.get(uri)
        if cached is not None and cached.text == text and cached.project_key == project_key(project):
            return cached
        loop = asyncio.get_running_loop()
        analysis = await loop.run_in_executor(self._exact, self._analyse, text, path, config, project)
        if self.workspace.get_text_document(uri).source == text:
            self.analyses[uri] = analysis
        return analysis

    # -- the project index ---------------------------------------------------------------------
    async def project_facts(self, uri: str, path: str, config: Config, source) -> FileFacts | None:
        """The project facts of the document, once the index has its text (`source()`: its bytes).
        Only files take part: an untitled buffer, or a file the configuration excludes, does not."""
        if not config.project:
            return None
        if not uri.startswith("file:") or _files.is_excluded(
                path, exclude=config.exclude, extend_exclude=config.extend_exclude, base=config.root,
                respect_gitignore=False):
            return None
        return await self.projects.facts(config, path, source(), self._buffers)

    def _buffers(self) -> dict[str, bytes]:
        """The open files as the editor has them (what the index is built with instead of the disk)."""
        out = {}
        for uri in self._open_files():
            out[self.path_of(uri)] = encode(self.workspace.get_text_document(uri).source)
        for uri in self._open_notebooks():
            out[self.path_of(uri)] = notebook_bytes(self.notebook_cells(uri))
        return out

    def _open_files(self) -> list[str]:
        return [uri for uri in self.workspace.text_documents if uri in self.python and uri.startswith("file:")]

    def _open_notebooks(self) -> list[str]:
        return [uri for uri in self.workspace.notebook_documents if uri.startswith("file:")]

    def _facts_changed(self, changed: set[str], edited: str) -> None:
        """The index took a new text of `edited`: analyse again the other open documents whose facts changed."""
        for uri in self._open_files():
            real = os.path.realpath(self.path_of(uri))
            if real in changed and real != edited:
                self.schedule(uri, 0)
        for uri in self._open_notebooks():
            real = os.path.realpath(self.path_of(uri))
            if real in changed and real != edited:
                self.schedule_notebook(uri, 0)

    def _index_built(self, root: str) -> None:
        """A project's index is there after some documents were analysed without it: analyse them again
        (those whose facts are none find their analysis in the cache)."""
        for uri in self._open_files():
            self.schedule(uri, 0)
        for uri in self._open_notebooks():
            self.schedule_notebook(uri, 0)

    async def provisional(self, uri: str, text: str) -> list[Finding] | None:
        """Findings from the last exact analysis and the edited function alone (rewriter.lsp.incremental)."""
        base = self.analyses.get(uri)
        if not self.incremental or base is None or base.error is not None or base.excluded:
            return None

        def analyse_slice(slice_text: str) -> list[Finding] | None:
            piece = DocumentAnalysis.of(slice_text, base.path, base.config, base.facts, project=base.project)
            return None if piece.error is not None else piece.findings

        def run() -> list[Finding] | None:
            return provisional_findings(base.text, base.findings, text, analyse_slice)

        return await asyncio.get_running_loop().run_in_executor(self._fast, run)

    def schedule(self, uri: str, delay: float) -> None:
        previous = self._pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        self._pending[uri] = asyncio.get_running_loop().create_task(self._lint(uri, delay))

    async def _lint(self, uri: str, delay: float) -> None:
        """Debounce; publish provisional findings when the edit allows; then the exact ones."""
        try:
            if delay:
                await asyncio.sleep(delay)
            document = self.workspace.get_text_document(uri)
            version, text = document.version, document.source
            cached = self.analyses.get(uri)
            if cached is None or cached.text != text:
                findings = await self.provisional(uri, text)
                if findings is not None and self._current(uri, version):
                    self.publish(uri, version, text, findings)
                    await asyncio.sleep(self.idle)  # still typing: this task is cancelled before the exact run
            analysis = await self.analysis(uri)
            if analysis is None or not self._current(uri, version):
                return  # a newer change has its own analysis scheduled
            if analysis.error is not None:
                self._report_error(uri, analysis)
            else:  # an excluded file has no findings: what it showed before it was excluded goes
                self.publish(uri, version, analysis.text, analysis.findings)
            self.settled(uri, version)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a bug must not take the server down: say it, keep serving
            log.exception("analysis of %s failed", uri)
            self._show_once(f"phiml-rewrite: internal error while analysing {uri}: {type(e).__name__}: {e}")
        finally:
            if self._pending.get(uri) is asyncio.current_task():
                del self._pending[uri]

    def settled(self, uri: str, version: int | None) -> None:
        """Tell the client that what is shown for `version` is final: the exact analysis is done, no
        provisional result will replace it. A client (and our tests) waits on this, not on a pause."""
        self.protocol.notify(SETTLED, {"uri": uri, "version": version})

    def _current(self, uri: str, version: int | None) -> bool:
        return self.workspace.get_text_document(uri).version == version

    def publish(self, uri: str, version: int | None, text: str, findings: list[Finding],
                cell_uris: dict[int, str] | None = None) -> None:
        verdicts = self.verifier.for_text(uri, text)
        keys = [(protocol.finding_key(f), f.message, f.note, f.related,
                 verdicts.get(tuple(protocol.finding_key(f)))) for f in findings]
        if self._published.get(uri) == (version, keys):
            return  # the exact analysis confirmed the provisional findings
        self._published[uri] = (version, keys)
        positions = protocol.Positions(text, self.workspace.get_text_document(uri).position_codec)
        diagnostics = [protocol.diagnostic(f, positions, uri, cell_uris) for f in findings]
        for diagnostic, (*_, kept) in zip(diagnostics, keys):
            if kept is not None:  # the verdict of "verify this fix", while the text is the one verified
                diagnostic.message += f"\nfix {kept.message}"
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))

    def _report_error(self, uri: str, analysis: DocumentAnalysis) -> None:
        # Mostly a buffer that does not parse while being typed: the editor shows the syntax error
        # already, and the last findings stay (no flicker) until it parses again.
        log.info("%s: %s", uri, analysis.error)
        if not analysis.error.startswith("syntax error"):
            self.window_log_message(types.LogMessageParams(types.MessageType.Warning, f"{analysis.path}: {analysis.error}"))

    def forget(self, uri: str) -> None:
        task = self._pending.pop(uri, None)
        if task is not None:
            task.cancel()
        closed = self.analyses.pop(uri, None)
        if uri.startswith("file:"):  # the other modules see the file on disk again
            self.projects.close(closed.config if closed is not None else self.config_of(self.path_of(uri)), self.path_of(uri))
        self._published.pop(uri, None)
        self.verifier.forget(uri)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def _show_once(self, message: str) -> None:
        if message not in self._shown_errors:
            self._shown_errors.add(message)
            self.window_show_message(types.ShowMessageParams(types.MessageType.Warning, message))

    # -- notebooks -----------------------------------------------------------------------------
    def notebook_of(self, cell_uri: str) -> str | None:
        notebook = self.workspace.get_notebook_document(cell_uri=cell_uri)
        return None if notebook is None else notebook.uri

    def notebook_cells(self, notebook_uri: str) -> list[NotebookCell]:
        """The notebook's Python code cells in order, numbered among all its cells as the CLI numbers them."""
        notebook = self.workspace.get_notebook_document(notebook_uri=notebook_uri)
        if notebook is None:
            return []
        out = []
        for position, cell in enumerate(notebook.cells, 1):
            if cell.kind != types.NotebookCellKind.Code:
                continue
            document = self.workspace.get_text_document(cell.document)
            if (document.language_id or "python") == "python":
                out.append(NotebookCell(cell.document, position, document.source))
        return out

    def _analyse_notebook(self, cells: list[NotebookCell], path: str, config: Config,
                          project: FileFacts | None) -> NotebookAnalysis:
        analysis = NotebookAnalysis.of(cells, path, config, project=project)
        _settle_garbage()
        return analysis

    async def notebook_analysis(self, notebook_uri: str) -> NotebookAnalysis:
        cells = self.notebook_cells(notebook_uri)
        path = self.path_of(notebook_uri)
        config = self.config_of(path)
        project = await self.project_facts(notebook_uri, path, config, lambda: notebook_bytes(cells))
        cached = self.notebook_analyses.get(notebook_uri)
        if cached is not None and cached.cells == cells and cached.project_key == project_key(project):
            return cached
        loop = asyncio.get_running_loop()
        analysis = await loop.run_in_executor(self._exact, self._analyse_notebook, cells, path, config, project)
        if self.notebook_cells(notebook_uri) == cells:
            self.notebook_analyses[notebook_uri] = analysis
        return analysis

    def schedule_notebook(self, notebook_uri: str, delay: float) -> None:
        previous = self._pending.pop(notebook_uri, None)
        if previous is not None:
            previous.cancel()
        self._pending[notebook_uri] = asyncio.get_running_loop().create_task(self._lint_notebook(notebook_uri, delay))

    async def _lint_notebook(self, notebook_uri: str, delay: float) -> None:
        """Debounce, analyse the notebook as one module, publish each cell's findings (none: an empty list)."""
        try:
            if delay:
                await asyncio.sleep(delay)
            cells = self.notebook_cells(notebook_uri)
            analysis = await self.notebook_analysis(notebook_uri)
            if analysis.cells != cells or self.notebook_cells(notebook_uri) != cells:
                return  # a newer change has its own analysis scheduled
            if analysis.error is not None:
                log.info("%s: %s", notebook_uri, analysis.error)
                return  # as for files: the last findings stay until the cells parse again
            sent = self._notebook_published.setdefault(notebook_uri, set())
            for gone in sent - {c.key for c in cells}:
                self.publish(gone, None, "", [])
            cell_uris = {cell.index: cell.key for cell in cells}
            for cell in cells:
                version = self.workspace.get_text_document(cell.key).version
                self.publish(cell.key, version, cell.text, analysis.findings.get(cell.key, []), cell_uris)
                self.settled(cell.key, version)
            sent.clear()
            sent.update(c.key for c in cells)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a bug must not take the server down: say it, keep serving
            log.exception("analysis of %s failed", notebook_uri)
            self._show_once(f"phiml-rewrite: internal error while analysing {notebook_uri}: {type(e).__name__}: {e}")
        finally:
            if self._pending.get(notebook_uri) is asyncio.current_task():
                del self._pending[notebook_uri]

    def forget_notebook(self, notebook_uri: str, cell_uris: list[str]) -> None:
        task = self._pending.pop(notebook_uri, None)
        if task is not None:
            task.cancel()
        closed = self.notebook_analyses.pop(notebook_uri, None)
        if notebook_uri.startswith("file:"):  # the other modules see the notebook on disk again
            path = self.path_of(notebook_uri)
            config = closed.analysis.config if closed is not None and closed.analysis is not None else self.config_of(path)
            self.projects.close(config, path)
        for uri in self._notebook_published.pop(notebook_uri, set()) | set(cell_uris):
            self._published.pop(uri, None)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def cells_edit(self, edits: dict[str, list[TextEdit]]) -> types.WorkspaceEdit:
        """Edits of several cell documents, versioned when the client takes document changes."""
        positions = {uri: protocol.Positions(self.workspace.get_text_document(uri).source,
                                             self.workspace.get_text_document(uri).position_codec) for uri in edits}
        lsp_edits = {uri: [positions[uri].text_edit(e) for e in cell_edits] for uri, cell_edits in edits.items()}
        caps = self.client_capabilities.workspace
        if caps and caps.workspace_edit and caps.workspace_edit.document_changes:
            return types.WorkspaceEdit(document_changes=[
                types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri, version=self.workspace.get_text_document(uri).version), edits=cell_edits)
                for uri, cell_edits in lsp_edits.items()])
        return types.WorkspaceEdit(changes=lsp_edits)

    # -- code actions --------------------------------------------------------------------------
    def workspace_edit(self, uri: str, version: int | None, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        caps = self.client_capabilities.workspace
        if caps and caps.workspace_edit and caps.workspace_edit.document_changes:
            document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
            return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=document, edits=edits)])
        return types.WorkspaceEdit(changes={uri: edits})

    def can_resolve_edits(self) -> bool:
        text_document = self.client_capabilities.text_document
        action = text_document.code_action if text_document else None
        support = action.resolve_support if action else None
        return bool(support and "edit" in support.properties)


server = PhimlLanguageServer()


@server.feature(types.INITIALIZE)
def initialize(ls: PhimlLanguageServer, params: types.InitializeParams) -> None:
    options = params.initialization_options or {}
    if not isinstance(options, dict):
        return
    if isinstance(options.get("debounceMs"), (int, float)):
        ls.debounce = max(0.0, options["debounceMs"] / 1000)
    if isinstance(options.get("idleMs"), (int, float)):
        ls.idle = max(0.0, options["idleMs"] / 1000)
    if isinstance(options.get("incremental"), bool):
        ls.incremental = options["incremental"]
    ls.verifier.configure(options)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: PhimlLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    if item.language_id == "python" or item.uri.endswith((".py", ".pyi")):
        ls.python.add(item.uri)
        ls.schedule(item.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: PhimlLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    if params.text_document.uri in ls.python:
        ls.schedule(params.text_document.uri, ls.debounce)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: PhimlLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    if params.text_document.uri in ls.python:
        ls.analyses.pop(params.text_document.uri, None)  # the configuration may have changed with the save:
        ls.schedule(params.text_document.uri, 0)  # the same text is analysed again


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
async def notebook_did_open(ls: PhimlLanguageServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.schedule_notebook(params.notebook_document.uri, 0)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
async def notebook_did_change(ls: PhimlLanguageServer, params: types.DidChangeNotebookDocumentParams) -> None:
    ls.schedule_notebook(params.notebook_document.uri, ls.debounce)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
async def notebook_did_save(ls: PhimlLanguageServer, params: types.DidSaveNotebookDocumentParams) -> None:
    ls.notebook_analyses.pop(params.notebook_document.uri, None)  # the configuration may have changed with the save:
    ls.schedule_notebook(params.notebook_document.uri, 0)  # the same cells are analysed again


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def notebook_did_close(ls: PhimlLanguageServer, params: types.DidCloseNotebookDocumentParams) -> None:
    ls.forget_notebook(params.notebook_document.uri, [c.uri for c in params.cell_text_documents])


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: PhimlLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    if params.text_document.uri in ls.python:
        ls.python.discard(params.text_document.uri)
        ls.forget(params.text_document.uri)


@server.feature(types.SHUTDOWN)
def shutdown(ls: PhimlLanguageServer, *args) -> None:
    ls.verifier.cancel_all()  # their processes are in groups of their own: they would outlive the server


@server.command(_verify.COMMAND)
async def verify_fix(ls: PhimlLanguageServer, *args) -> dict:
    """`phiml-rewrite.verifyFix {uri, version, key}`: the argument the "Verify this fix" action carries."""
    request = args[0] if args and isinstance(args[0], dict) else {}
    return await _verify.execute(ls, str(request.get("uri")), request.get("version"), tuple(request.get("key") or ()))


def _wants(only: list[str] | None, kind: str) -> bool:
    """LSP's kind filter: `only=["source"]` asks for `source.fixAll.phiml-rewrite` too."""
    return only is None or any(kind == k or kind.startswith(k + ".") for k in only)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, protocol.FIX_ALL_KIND,
                           _verify.KIND],
        resolve_provider=True,
    ),
)
async def code_action(ls: PhimlLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    notebook = ls.notebook_of(uri)
    if notebook is not None:
        return await _cell_actions(ls, notebook, uri, params)
    if uri not in ls.python:
        return None
    analysis = await ls.analysis(uri)
    if analysis is None or analysis.error is not None or analysis.excluded:
        return None
    document = ls.workspace.get_text_document(uri)
    positions = protocol.Positions(analysis.text, document.position_codec)
    only = [str(k.value if hasattr(k, "value") else k) for k in params.context.only] if params.context.only else None
    actions: list[types.CodeAction] = []
    if _wants(only, types.CodeActionKind.QuickFix.value) or _wants(only, _verify.KIND):
        verdicts = ls.verifier.for_text(uri, analysis.text)
        for finding, diagnostic in _findings_in(analysis, params, positions):
            for action in _quick_fixes(ls, uri, document.version, analysis, finding, diagnostic, positions, verdicts):
                if _wants(only, str(getattr(action.kind, "value", action.kind))):
                    actions.append(action)
    if _wants(only, protocol.FIX_ALL_KIND) and any(analysis.has_fix(f) for f in analysis.findings):
        action = types.CodeAction(
            title="phiml-rewrite: fix all auto-fixable problems",
            kind=protocol.FIX_ALL_KIND,
            data={"uri": uri, "version": document.version},
        )
        if ls.can_resolve_edits():
            actions.append(action)  # the edit is computed when chosen (it runs the whole fixpoint)
        else:
            edits = await asyncio.get_running_loop().run_in_executor(ls._exact, analysis.fix_all_edits)
            if edits:
                action.edit = ls.workspace_edit(uri, document.version, [positions.text_edit(e) for e in edits])
                actions.append(action)
    return actions or None


@server.feature(types.CODE_ACTION_RESOLVE)
async def resolve_code_action(ls: PhimlLanguageServer, action: types.CodeAction) -> types.CodeAction:
    data: Any = action.data or {}
    if action.kind == protocol.FIX_ALL_KIND and isinstance(data, dict) and data.get("notebook"):
        return await _resolve_notebook_fix_all(ls, action, data)
    uri = data.get("uri") if isinstance(data, dict) else None
    if action.kind != protocol.FIX_ALL_KIND or uri is None:
        return action
    document = ls.workspace.get_text_document(uri)
    if data.get("version") != document.version:
        return action  # the buffer changed since: no edit rather than a wrong one
    analysis = await ls.analysis(uri)
    if analysis is not None and analysis.error is None:
        loop = asyncio.get_running_loop()
        edits = await loop.run_in_executor(ls._exact, analysis.fix_all_edits)
        positions = protocol.Positions(analysis.text, document.position_codec)
        action.edit = ls.workspace_edit(uri, document.version, [positions.text_edit(e) for e in edits])
    return action


def _findings_in(analysis: DocumentAnalysis, params: types.CodeActionParams, positions: protocol.Positions):
    """Our findings behind the diagnostics the client sent; without any, those overlapping the range."""
    return _matching(analysis.findings, params, positions)


def _quick_fixes(ls, uri, version, analysis: DocumentAnalysis, finding: Finding, diagnostic, positions,
                 verdicts: dict | None = None):
    edits = analysis.fix_edits(finding)
    if edits:
        unsafe = analysis.unsafe(finding)
        label = f"{protocol.fix_title(finding)} ({finding.code})"
        key = protocol.finding_key(finding)
        tags = ", ".join(filter(None, ["unsafe fix" if unsafe else "", _verify.label((verdicts or {}).get(tuple(key)))]))
        yield types.CodeAction(
            title=f"{label} [{tags}]" if tags else label,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            is_preferred=not unsafe,
            edit=ls.workspace_edit(uri, version, [positions.text_edit(e) for e in edits]),
        )
        if _verify.offered(finding):  # compares the function before and after on synthesized inputs
            yield types.CodeAction(
                title=_verify.TITLE,
                kind=_verify.KIND,
                diagnostics=[diagnostic],
                command=types.Command(title=_verify.TITLE, command=_verify.COMMAND,
                                  arguments=[{"uri": uri, "version": version, "key": key}]),
            )
    suppression = analysis.suppression_edit(finding)
    if suppression is not None:
        yield types.CodeAction(
            title=f"Ignore {finding.code} for this line (phiml-rewrite: ignore)",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            edit=ls.workspace_edit(uri, version, [positions.text_edit(suppression)]),
        )


async def _cell_actions(ls: PhimlLanguageServer, notebook_uri: str, uri: str,
                        params: types.CodeActionParams) -> list[types.CodeAction] | None:
    """Quick fixes and suppressions of a cell's findings, and fix-all of the notebook, as edits of cells."""
    analysis = await ls.notebook_analysis(notebook_uri)
    if analysis.error is not None or analysis.analysis is None or analysis.analysis.excluded:
        return None
    document = ls.workspace.get_text_document(uri)
    positions = protocol.Positions(document.source, document.position_codec)
    only = [str(k.value if hasattr(k, "value") else k) for k in params.context.only] if params.context.only else None
    actions: list[types.CodeAction] = []
    loop = asyncio.get_running_loop()
    if _wants(only, types.CodeActionKind.QuickFix.value):
        cell_findings = analysis.findings.get(uri, [])
        for finding, diagnostic in _matching(cell_findings, params, positions):
            edits = await loop.run_in_executor(ls._exact, analysis.fix_edits, finding)
            if edits:
                unsafe = finding.fix is not None and finding.fix.safety.value == "unsafe"
                label = f"{protocol.fix_title(finding)} ({finding.code})"
                actions.append(types.CodeAction(title=f"{label} [unsafe fix]" if unsafe else label,
                                                kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                                                is_preferred=not unsafe, edit=ls.cells_edit(edits)))
            suppression = analysis.suppression_edit(uri, finding)
            if suppression is not None:
                actions.append(types.CodeAction(title=f"Ignore {finding.code} for this line (phiml-rewrite: ignore)",
                                                kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                                                edit=ls.cells_edit({uri: [suppression]})))
    if _wants(only, protocol.FIX_ALL_KIND) and analysis.has_any_fix():
        notebook = ls.workspace.get_notebook_document(notebook_uri=notebook_uri)
        action = types.CodeAction(title="phiml-rewrite: fix all auto-fixable problems", kind=protocol.FIX_ALL_KIND,
                                  data={"notebook": notebook_uri, "version": notebook.version})
        if ls.can_resolve_edits():
            actions.append(action)
        else:
            edits = await loop.run_in_executor(ls._exact, analysis.fix_all_edits)
            if edits:
                action.edit = ls.cells_edit(edits)
                actions.append(action)
    return actions or None


async def _resolve_notebook_fix_all(ls: PhimlLanguageServer, action: types.CodeAction, data: dict) -> types.CodeAction:
    notebook_uri = data["notebook"]
    notebook = ls.workspace.get_notebook_document(notebook_uri=notebook_uri)
    if notebook is None or data.get("version") != notebook.version:
        return action  # the notebook changed since: no edit rather than a wrong one
    analysis = await ls.notebook_analysis(notebook_uri)
    edits = await asyncio.get_running_loop().run_in_executor(ls._exact, analysis.fix_all_edits)
    if edits:
        action.edit = ls.cells_edit(edits)
    return action


def _matching(findings: list[Finding], params: types.CodeActionParams, positions: protocol.Positions):
    """The findings behind the client's diagnostics; without any, those overlapping the range."""
    by_key = {tuple(protocol.finding_key(f)): f for f in findings}
    out: list[tuple[Finding, types.Diagnostic]] = []
    for diagnostic in params.context.diagnostics:
        if diagnostic.source != protocol.SOURCE or not isinstance(diagnostic.data, dict):
            continue
        finding = by_key.get(tuple(diagnostic.data.get("key") or ()))
        if finding is not None:
            out.append((finding, diagnostic))
    if out or params.context.diagnostics:
        return out
    start, end = params.range.start, params.range.end
    for finding in findings:
        d = protocol.diagnostic(finding, positions)
        if (d.range.start.line, d.range.start.character) <= (end.line, end.character) and (
            (start.line, start.character) <= (d.range.end.line, d.range.end.character)
        ):
            out.append((finding, d))
    return out


def start(tcp_port: int | None = None, host: str = "127.0.0.1") -> None:
    logging.basicConfig(level=logging.WARNING)
    if tcp_port is not None:
        server.start_tcp(host, tcp_port)
    else:
        server.start_io()
