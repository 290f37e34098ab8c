"""The editor's "verify this fix": synthesized inputs for the function a fix changes, off the event loop.

The code action carries a workspace command; executing it takes the buffer's current text (unsaved
edits included), applies that fix alone, and compares both versions of its function on inputs
synthesized for it (rewriter/verify/synthesis/single.py) in a process of its own and its workers,
one verification at a time (they are CPU-bound) and one per document. Cancelling the progress, closing
the document or shutting the server down kills that process group. The verdict is shown
(`window/showMessage`), sent as a `phiml-rewrite/verdict` notification, returned as the command's
result, and kept on the finding's diagnostic and its quick fix's title for as long as the buffer has
the text that was verified.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Callable

from lsprotocol import types
from pygls.uris import to_fs_path

from ..findings import Finding, Safety
from ..units import unit_at
from . import protocol
from ..verify.synthesis.command import Budget
from ..verify.synthesis.report import ERROR, VERIFIED
from ..verify.synthesis.run import PACKAGE_ROOT
from ..verify.synthesis.single import FixVerdict

COMMAND = "phiml-rewrite.verifyFix"
KIND = "quickfix.phiml-rewrite.verify"  # a quick fix's subkind: shown with the finding's fixes
VERDICT = "phiml-rewrite/verdict"  # a notification: {"uri", "version", "key", "status", "message", ...}
TITLE = "Verify this fix (phiml-rewrite)"
MERGES = {"PML201"}  # rules whose safe fixes merge branches: verifying those is offered too
DEFAULT_MAX_EXAMPLES = 30
DEFAULT_SECONDS = 5.0  # per backend
CANCELLED = "cancelled"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Kept:
    """The last verification verdict of a quick fix, with the buffer's text it is about."""
    text: str  # the buffer's text the verdict is about
    status: str
    message: str  # the verdict's line (`FixVerdict.message`)
    short: str  # a few words for the quick fix's title (`FixVerdict.short`)


def offered(finding: Finding) -> bool:
    """Unsafe fixes, and safe branch merges (a second opinion on inputs nobody wrote)."""
    return finding.fix is not None and (finding.fix.safety is Safety.UNSAFE or finding.code in MERGES)


def label(kept: Kept | None) -> str:
    """The quick fix title's suffix once the fix was verified: `verified on jax`, `falsified on jax`."""
    return "" if kept is None else kept.short


@dataclass
class Run:
    """One verification: what it verifies, whether it was cancelled, its process once started."""
    what: str = "a fix"
    cancelled: bool = False
    process: subprocess.Popen | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
            if self.process is not None and self.process.poll() is None:
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)  # the workers too: they share its group
                except ProcessLookupError:
                    pass


class Verifier:
    """The verdicts kept per document and finding, and the one thread the verifications run on."""

    def __init__(self) -> None:
        self.max_examples = DEFAULT_MAX_EXAMPLES
        self.seconds = DEFAULT_SECONDS
        self.backends: tuple[str, ...] | None = None  # PhiML's installed backends unless restricted
        self.jobs = max(1, min(4, (os.cpu_count() or 2) // 2))  # backends at a time
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="phiml-verify")
        self.running: dict[str, Run] = {}  # uri -> the verification under way there
        self.progress_tokens = 0
        self.kept: dict[str, dict[tuple, Kept]] = {}

    def configure(self, options: dict) -> None:
        if isinstance(options.get("verifyMaxExamples"), int) and options["verifyMaxExamples"] >= 1:
            self.max_examples = options["verifyMaxExamples"]
        if isinstance(options.get("verifySeconds"), (int, float)) and options["verifySeconds"] > 0:
            self.seconds = float(options["verifySeconds"])
        if isinstance(options.get("verifyBackends"), list) and options["verifyBackends"]:
            self.backends = tuple(str(b) for b in options["verifyBackends"])

    def submit(self, run: Run, text: str, fixed: str, path: str, line: int, root: str | None,
               on_event: Callable[[str], None]) -> concurrent.futures.Future[FixVerdict | None]:
        """The verdict, or None if `run` was cancelled."""
        budget = Budget(max_examples=self.max_examples, seconds=self.seconds)
        request = {"text": text, "fixed": fixed, "path": path, "line": line, "root": root,
                   "budget": budget.__dict__, "backends": list(self.backends or ()), "jobs": self.jobs}
        return self._pool.submit(_run, run, request, on_event)

    def cancel(self, uri: str) -> None:
        run = self.running.get(uri)
        if run is not None:
            run.cancel()

    def cancel_all(self) -> None:
        for run in list(self.running.values()):
            run.cancel()

    def keep(self, uri: str, key: tuple, text: str, verdict: FixVerdict) -> None:
        self.kept.setdefault(uri, {})[key] = Kept(text, verdict.status, verdict.message(), verdict.short())

    def for_text(self, uri: str, text: str) -> dict[tuple, Kept]:
        """The verdicts about this text of the buffer; those about an older text are dropped."""
        kept = self.kept.get(uri)
        if not kept:
            return {}
        current = {key: k for key, k in kept.items() if k.text == text}
        if len(current) != len(kept):
            self.kept[uri] = current
        return current

    def forget(self, uri: str) -> None:
        self.kept.pop(uri, None)
        self.cancel(uri)


def _run(run: Run, request: dict, on_event: Callable[[str], None]) -> FixVerdict | None:
    """`python -m rewriter.verify.synthesis.single` on `request`, in a process group of its own."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([PACKAGE_ROOT, *filter(None, [env.get("PYTHONPATH")])])
    with tempfile.TemporaryFile("w+") as errors:
        with run.lock:
            if run.cancelled:
                return None
            run.process = subprocess.Popen(
                [sys.executable, "-m", "rewriter.verify.synthesis.single"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=errors, text=True, env=env, start_new_session=True)
        process = run.process
        verdict = None
        try:
            process.stdin.write(json.dumps(request))  # ASCII: whatever the locale's encoding
            process.stdin.close()
        except BrokenPipeError:
            pass  # killed, or it failed before reading: said below
        for line in process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue  # not ours: a library printing on import
            if isinstance(message, dict) and "event" in message:
                on_event(str(message["event"]))
            elif isinstance(message, dict) and "verdict" in message:
                verdict = FixVerdict.from_dict(message["verdict"])
        process.wait()
        if run.cancelled:
            return None
        if verdict is None:
            errors.seek(0)
            last = (errors.read().strip().splitlines() or [f"exit {process.returncode}"])[-1]
            return FixVerdict(ERROR, "", reason=f"the verification failed: {last}")
        return verdict


# -- the command (`ls`: the PhimlLanguageServer) ---------------------------------------------------
async def execute(ls, uri: str, version: int | None, key: tuple) -> dict:
    """Synthesize inputs for the function the finding's fix changes, that fix alone applied to the
    buffer's text; show the verdict, keep it on the diagnostic, return it."""
    answer = {"uri": uri, "version": version, "key": list(key)}
    verifier: Verifier = ls.verifier
    if uri not in ls.python or ls.notebook_of(uri) is not None:
        return _verdict(ls, answer, "error", "verify this fix works on Python files (not notebooks)")
    if not ls._current(uri, version):
        return _verdict(ls, answer, "stale", "the buffer changed since the fix was offered: ask again")
    if uri in verifier.running:
        return _verdict(ls, answer, "busy", f"already verifying {verifier.running[uri].what} in this document")
    run = verifier.running[uri] = Run()  # before the first await: a second request finds it
    try:
        return await _execute(ls, verifier, run, uri, version, key, answer)
    finally:
        verifier.running.pop(uri, None)


async def _execute(ls, verifier: Verifier, run: Run, uri: str, version: int | None, key: tuple,
                   answer: dict) -> dict:
    analysis = await ls.analysis(uri)
    finding = None if analysis is None else next(
        (f for f in analysis.findings if tuple(protocol.finding_key(f)) == key), None)
    if finding is None or not ls._current(uri, version):
        return _verdict(ls, answer, "stale", "the finding is gone: ask again")
    loop = asyncio.get_running_loop()
    fixed = await loop.run_in_executor(ls._exact, analysis.fixed_text, finding)
    if fixed is None:
        return _verdict(ls, answer, "error", "the fix does not apply")
    function = unit_at(analysis.text, finding.span.line)
    run.what = f"the fix of `{function}`"
    progress = await _begin_progress(ls, verifier, f"Verifying the fix of `{function}`", run)

    def on_event(message: str) -> None:  # from the verifying thread
        if progress is not None:
            loop.call_soon_threadsafe(lambda: ls.work_done_progress.report(
                progress, types.WorkDoneProgressReport(message=message)))
    try:
        verdict = await asyncio.wrap_future(verifier.submit(
            run, analysis.text, fixed, analysis.path, finding.span.line, _import_root(ls, analysis), on_event))
    except Exception as e:  # a bug must not take the server down
        log.exception("verifying a fix in %s failed", uri)
        message = f"internal error: {type(e).__name__}: {e}"
        _end_progress(ls, progress, message)
        return _verdict(ls, answer, "error", message)
    if verdict is None:
        _end_progress(ls, progress, "cancelled")
        return _verdict(ls, {**answer, "function": function}, CANCELLED, f"the verification of `{function}` was cancelled")
    verdict.function = verdict.function or function  # a process that failed does not know it
    if uri in ls.python:  # still open: the verdict goes on the diagnostic while the text is this one
        verifier.keep(uri, key, analysis.text, verdict)
        document = ls.workspace.get_text_document(uri)
        if document.source == analysis.text:
            current = ls.analyses.get(uri)  # an analysis since (a save) of the same text
            findings = current.findings if current is not None and current.text == analysis.text else analysis.findings
            ls.publish(uri, document.version, analysis.text, findings)
    _end_progress(ls, progress, verdict.message())
    return _verdict(ls, {**answer, **verdict.to_dict()}, verdict.status, f"`{verdict.function}`: fix {verdict.message()}")


def _verdict(ls, answer: dict, status: str, message: str) -> dict:
    """Show the verdict, tell the client it is there (`phiml-rewrite/verdict`), return it."""
    kind = types.MessageType.Info if status in (VERIFIED, CANCELLED) else types.MessageType.Warning
    ls.window_show_message(types.ShowMessageParams(kind, f"phiml-rewrite: {message}"))
    answer = {**answer, "status": status, "message": answer.get("message", message)}
    ls.protocol.notify(VERDICT, answer)
    return answer


def _import_root(ls, analysis) -> str | None:
    """The folder the function's imports resolve from: its workspace folder, else its project's."""
    path = os.path.abspath(analysis.path)
    folders = [to_fs_path(f.uri) for f in ls.workspace.folders.values()] + [ls.workspace.root_path]
    inside = [f for f in folders if f and path.startswith(os.path.abspath(f) + os.sep)]
    if inside:
        return max(inside, key=len)
    return analysis.config.project_root


async def _begin_progress(ls, verifier: Verifier, title: str, run: Run) -> str | None:
    """A `$/progress` the user can cancel (which cancels `run`); None if the client shows none."""
    window = ls.client_capabilities.window
    if not (window and window.work_done_progress):
        return None
    verifier.progress_tokens += 1
    token = f"phiml-rewrite-verify-{verifier.progress_tokens}"
    try:
        await asyncio.wait_for(ls.work_done_progress.create_async(token), 5)
    except Exception:  # the client refused or did not answer: no progress, the verdict still comes
        return None
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True))
    ls.work_done_progress.tokens[token].add_done_callback(lambda future: future.cancelled() and run.cancel())
    return token


def _end_progress(ls, token: str | None, message: str) -> None:
    if token is not None:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
        ls.work_done_progress.tokens.pop(token, None)
