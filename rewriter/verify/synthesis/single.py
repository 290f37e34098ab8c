"""Verify one fix of one buffer by synthesis: the function containing it, that fix alone applied.

`verify_fix` takes the buffer's text as the original and the text with the fix as the rewrite; the
editor's "verify this fix" (rewriter/lsp/verify.py) runs it as `python -m rewriter.verify.synthesis.single`
(a request as JSON on stdin; events, then the verdict, as JSON lines on stdout), a process it can kill,
workers and all, to cancel. The pieces are `command.synthesize`'s (plan, backends, workers); only the
trees differ: the CLI mirrors the current directory by copying it, an editor asks for one function of
a possibly large project many times, so each version's tree is made of symbolic links to the
project's entries, with real folders only along the path to the buffer's file, which is written
there. Sibling modules and packages import as they do in the project; the user's file is untouched.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ...units import changed_units, unit_at, units
from ..workspace import IGNORED_DIRS, frameworks_of
from . import plan as _plan
from .command import Budget, _backends, _framework
from .report import ERROR, FALSIFIED, UNSYNTHESIZABLE, VERIFIED, Result
from .run import Job, run_all

MAX_SIBLINGS = 200  # modules of the file's folder whose calls are read, besides the buffer


@dataclass
class FixVerdict:
    """What `verify_fix` found: a status over the backends that ran, and the line to show."""
    status: str  # VERIFIED on every backend that ran, FALSIFIED on one, else UNSYNTHESIZABLE or ERROR
    function: str
    results: list[Result] = field(default_factory=list)  # per backend
    skipped: dict[str, str] = field(default_factory=dict)  # backend -> why it did not run
    reason: str = ""  # why nothing was compared (no backend ran)
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        """Verified on every backend that ran with the whole --max-examples budget: what `--verify
        auto` would write as proven."""
        return self.status == VERIFIED and not any(r.cut_short for r in self.results)

    def message(self) -> str:
        """`verified on jax (30 inputs)`, `falsified on jax: x=int32[2] [0, 0] — result: dtype ...`,
        `not synthesizable: ...`."""
        if self.status == FALSIFIED:
            r = next(r for r in self.results if r.status == FALSIFIED)
            where = " (at sizes no call passes)" if r.beyond_calls else ""
            return f"falsified on {r.backend}{where}: {r.inputs} — {r.reason}"
        if self.status == VERIFIED:
            counts = {r.examples for r in self.results}
            cut = "; the time budget cut the search short" if not self.complete else ""
            if len(counts) == 1:
                (n,) = counts
                return f"verified on {', '.join(r.backend for r in self.results)} ({n} input{'s' if n != 1 else ''}{cut})"
            return "verified on " + ", ".join(f"{r.backend} ({r.examples} inputs)" for r in self.results) + \
                (f" ({cut[2:]})" if cut else "")
        if self.status == UNSYNTHESIZABLE:
            return f"not synthesizable: {self.reason}"
        return f"not verified: {self.reason}"

    def short(self) -> str:
        """A few words for a title: `verified on numpy, jax`, `falsified on jax`; empty when neither."""
        if self.status == FALSIFIED:
            return "falsified on " + ", ".join(r.backend for r in self.results if r.status == FALSIFIED)
        if self.status == VERIFIED:
            return f"verified on {', '.join(r.backend for r in self.results)}" + ("" if self.complete else ", cut short")
        return ""

    def to_dict(self) -> dict:
        return {"status": self.status, "function": self.function, "message": self.message(), "reason": self.reason,
                "complete": self.complete, "seconds": round(self.seconds, 2), "skipped": self.skipped,
                "results": [r.__dict__ for r in self.results]}

    @classmethod
    def from_dict(cls, data: dict) -> "FixVerdict":
        return cls(data["status"], data["function"], [Result(**r) for r in data["results"]], data["skipped"],
                   data["reason"], data["seconds"])


def _function(text: str, fixed: str, line: int) -> tuple[str, str]:
    """The changed function containing `line`, or why there is none to call."""
    found = units(text)
    changed = [u.name for u in changed_units(text, fixed)]
    name = unit_at(found, line)
    if name in changed and found[name].callable:
        return name, ""
    callables = [n for n in changed if found[n].callable]
    if len(callables) == 1:  # the fix's line is outside the function it changes (a decorator, a hoisted def)
        return callables[0], ""
    if not changed:
        return name, "the fix changes no code that runs"
    return name, "the fix changes module-level code, not a function: synthesis calls functions"


def _mirror(root: Path, rel: Path, text: str, into: Path) -> Path:
    """`into` standing for `root`: symbolic links to its entries, real folders down to `rel`, which
    is written with `text`. Returns the written file."""
    here, source = into, root
    here.mkdir(parents=True)
    for part in rel.parts:
        for entry in os.scandir(source):
            if entry.name != part and entry.name not in IGNORED_DIRS:
                os.symlink(entry.path, here / entry.name)
        here, source = here / part, source / part
        if part != rel.parts[-1]:
            here.mkdir()
    here.write_text(text, encoding="utf-8")
    return here


def _sources(text: str, path: Path) -> list[str]:
    """The buffer and the other modules of its folder: the calls the plan reads."""
    out = [text]
    try:
        siblings = sorted(p for p in path.parent.glob("*.py") if p.name != path.name)[:MAX_SIBLINGS]
    except OSError:
        siblings = []
    for sibling in siblings:
        try:
            out.append(sibling.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return out


def verify_fix(text: str, fixed: str, path: str, line: int, root: str | None = None,
               budget: Budget = Budget(max_examples=30, seconds=5.0), backends: tuple[str, ...] | None = None,
               jobs: int = 1, on_event: Callable[[str], None] = lambda message: None) -> FixVerdict:
    """Compare `text` (eager) with `fixed` (jitted) on inputs synthesized for the function at `line`.

    `path`: the file the buffer is (it need not exist); `root`: the folder imports resolve from (the
    project), by default the file's folder; `backends`: restrict PhiML's backends."""
    start = time.monotonic()
    file = Path(os.path.abspath(path))
    top = Path(os.path.abspath(root)) if root else file.parent
    if not file.is_relative_to(top):
        top = file.parent
    name, why = _function(text, fixed, line)

    def verdict(status: str, reason: str = "", **kw) -> FixVerdict:
        return FixVerdict(status, name, reason=reason, seconds=time.monotonic() - start, **kw)

    if why:
        return verdict(UNSYNTHESIZABLE, why)
    framework = _framework(frameworks_of(text) | frameworks_of(fixed))
    if framework is None:
        return verdict(UNSYNTHESIZABLE, "synthesis covers PhiML and jax modules so far")
    planned = _plan.plan(text, name, _sources(text, file))
    if planned.reason:
        return verdict(UNSYNTHESIZABLE, planned.reason)
    chosen, skipped = _backends(framework, backends)
    if not chosen:
        return verdict(UNSYNTHESIZABLE, "no backend to run: " + "; ".join(f"{b} {w}" for b, w in skipped.items()),
                       skipped=skipped)
    rel = file.relative_to(top)
    tmp = Path(tempfile.mkdtemp(prefix="phiml-rewrite-verify-fix-"))
    try:
        original = _mirror(top, rel, text, tmp / "original")
        rewritten = _mirror(top, rel, fixed, tmp / "rewritten")
        job = Job(f"{rel.as_posix()}:{name}", name, str(original), str(rewritten), str(tmp / "original"),
                  str(tmp / "rewritten"), planned.to_dict())
        on_event(f"{name} on {', '.join(chosen)}")
        done = run_all(chosen, framework, [job], budget.seed, budget.max_examples, budget.seconds, jobs,
                       on_done=lambda b: on_event(f"{b}: done"))
    except OSError as e:
        return verdict(ERROR, f"cannot prepare the trees: {e}", skipped=skipped)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    results = []
    for backend in chosen:
        r = done[backend][job.id]
        results.append(Result.from_worker(rel.as_posix(), name, backend, r))
    statuses = {r.status for r in results}
    status = FALSIFIED if FALSIFIED in statuses else VERIFIED if statuses == {VERIFIED} else \
        UNSYNTHESIZABLE if statuses == {UNSYNTHESIZABLE} else ERROR
    reason = "; ".join(f"{r.backend}: {r.reason}" for r in results if r.status not in (VERIFIED, FALSIFIED))
    return verdict(status, reason, results=results, skipped=skipped)


def main() -> None:
    """stdin: {"text", "fixed", "path", "line", "root", "budget": {...}, "backends", "jobs"}."""
    request = json.load(sys.stdin)

    def say(message: str) -> None:
        print(json.dumps({"event": message}), flush=True)

    backends = tuple(request["backends"]) if request.get("backends") else None
    verdict = verify_fix(request["text"], request["fixed"], request["path"], request["line"], request.get("root"),
                         Budget(**request.get("budget", {})), backends, request.get("jobs", 1), say)
    print(json.dumps({"verdict": verdict.to_dict()}), flush=True)


if __name__ == "__main__":
    main()
