"""The editor's "verify this fix": synthesized inputs for the function a fix changes, off the event loop.

The code action carries a workspace command; executing it takes the buffer's current text (unsaved
edits included), applies that fix alone, and compares both versions of its function on inputs
synthesized for it (rewriter/verify/synthesis/single.py) in worker processes, one verification at
a time (they are CPU-bound) and one per document. The verdict is shown (`window/showMessage`), sent
as a `phiml-rewrite/verdict` notification, returned as the command's result, and kept on the finding's
diagnostic and its quick fix's title for as long as the buffer has the text that was verified.
"""
from __future__ import annotations

import concurrent.futures
import os
from dataclasses import dataclass
from typing import Callable

from ..findings import Finding, Safety
from ..verify.synthesis.command import Budget
from ..verify.synthesis.single import FixVerdict, verify_fix

COMMAND = "phiml-rewrite.verifyFix"
KIND = "quickfix.phiml-rewrite.verify"  # a quick fix's subkind: shown with the finding's fixes
VERDICT = "phiml-rewrite/verdict"  # a notification: {"uri", "version", "key", "status", "message", ...}
TITLE = "Verify this fix (phiml-rewrite)"
MERGES = {"PML201"}  # rules whose safe fixes merge branches: verifying those is offered too
DEFAULT_MAX_EXAMPLES = 30
DEFAULT_SECONDS = 5.0  # per backend


@dataclass(frozen=True)
class Kept:
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


class Verifier:
    """The verdicts kept per document and finding, and the one thread the verifications run on."""

    def __init__(self) -> None:
        self.max_examples = DEFAULT_MAX_EXAMPLES
        self.seconds = DEFAULT_SECONDS
        self.backends: tuple[str, ...] | None = None  # PhiML's installed backends unless restricted
        self.jobs = max(1, min(4, (os.cpu_count() or 2) // 2))  # backends at a time
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="phiml-verify")
        self.running: dict[str, str] = {}  # uri -> the function being verified
        self.kept: dict[str, dict[tuple, Kept]] = {}

    def configure(self, options: dict) -> None:
        if isinstance(options.get("verifyMaxExamples"), int) and options["verifyMaxExamples"] >= 1:
            self.max_examples = options["verifyMaxExamples"]
        if isinstance(options.get("verifySeconds"), (int, float)) and options["verifySeconds"] > 0:
            self.seconds = float(options["verifySeconds"])
        if isinstance(options.get("verifyBackends"), list) and options["verifyBackends"]:
            self.backends = tuple(str(b) for b in options["verifyBackends"])

    def submit(self, text: str, fixed: str, path: str, line: int, root: str | None,
               on_event: Callable[[str], None]) -> concurrent.futures.Future[FixVerdict]:
        budget = Budget(max_examples=self.max_examples, seconds=self.seconds)
        return self._pool.submit(verify_fix, text, fixed, path, line, root, budget, self.backends, self.jobs, on_event)

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
