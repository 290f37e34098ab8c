"""One run reaches the project's fixpoint: what a run's own fixes tell the other files is read in the run.

A fix in one file can change what the project index tells another (a jit hoisted to module level
makes the function it wraps traced from there; a function lifted out of a body becomes a module
function that others may call). Processed once, against the facts of the files as they were, the
run would leave those consequences to a second run, which would then change more: `--in-place`
twice must change nothing. So after a pass, the index takes in every rewritten file, and the files
whose facts that changes are processed again, on their rewritten text, until no facts change (or
`MAX_ROUNDS` passes, which says so).
"""
from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence

from ..files import real_path
from ..findings import FileResult, Related

# Passes over the project in one run, the first included. Each further pass only takes the files whose
# facts the previous one changed; a chain of consequences longer than this is cut, with a note.
MAX_ROUNDS = 4

# A finding that only the run's own rewrite of another file brings names that rewrite: run on this file alone,
# or before the other file is rewritten, it is not there (same file, same code, same evidence: same finding).
BECAUSE_REWRITTEN = "this run's fix here changes what this file tells `{name}`"

NOT_SETTLED = ("the project did not settle in {rounds} passes: what this run's fixes tell this file was "
               "still changing; a second run may change more")


def settle(results: list[FileResult], index, process: Callable[[str, bytes], FileResult]) -> list[FileResult]:
    """`results` of a first pass, with the files the run's own rewrites change the facts of processed
    again; `process(path, text)` processes one file's text with the facts the index holds now."""
    if index is None:
        return results
    by_path = {real_path(r.path): i for i, r in enumerate(results)}
    pending = _rewritten(results)
    for _ in range(MAX_ROUNDS - 1):
        causes = _facts_changed(index, pending)
        if not causes:
            return results
        pending = []
        for real in sorted(causes):
            i = by_path.get(real)
            if i is None or results[i].error:
                continue
            merged = _again(results[i], process, causes[real])
            if merged is not results[i]:
                if _text(merged) != _text(results[i]):
                    pending.append(merged)
                results[i] = merged
    if _facts_changed(index, pending):
        for result in pending:
            result.notes.append(NOT_SETTLED.format(rounds=MAX_ROUNDS))
    return results


def _rewritten(results: Sequence[FileResult]) -> list[FileResult]:
    return [r for r in results if not r.error and r.new_source is not None and r.new_source != r.old_source]


def _text(result: FileResult) -> bytes | None:
    return result.new_source if result.new_source is not None else result.old_source


def _facts_changed(index, results: Sequence[FileResult]) -> dict[str, list[FileResult]]:
    """Take the rewritten texts into the index; the real paths whose facts that changes, each with the
    rewritten files that changed them."""
    causes: dict[str, list[FileResult]] = {}
    for result in results:
        text = _text(result)
        if text is not None:
            for real in index.update(result.path, text):
                causes.setdefault(real, []).append(result)
    return causes


def _again(result: FileResult, process: Callable[[str, bytes], FileResult], causes: list[FileResult]) -> FileResult:
    """`result`'s file processed once more, on the text the run has made of it so far.

    The fixes applied before stay applied (their findings are kept); the findings of the new pass are
    those of the text as it now is, and the ones the earlier pass did not have name the rewrites that
    brought them (`related`). Positions of a file rewritten in an earlier pass are in that pass's text,
    as `--in-place` reports them."""
    text = _text(result)
    if text is None:
        return result
    again = process(result.path, text)
    if again.error:
        result.notes.append(f"not processed again with what this run's fixes tell it: {again.error}")
        return result
    known = {(f.code, f.message) for f in result.findings}
    evidence = tuple(Related.line_of(c.path, _first_changed_line(c), BECAUSE_REWRITTEN.format(name=os.path.basename(result.path)))
                     for c in causes if c.path != result.path)
    for finding in again.findings:
        if (finding.code, finding.message) not in known and evidence:
            finding.related = finding.related + evidence
    rewritten_before = result.new_source is not None and result.new_source != result.old_source
    findings = [f for f in result.findings if f.applied] + again.findings if rewritten_before else again.findings
    new_source = again.new_source if again.new_source is not None else result.new_source
    # Skipped: the pre-filter proved the text has nothing to find, and no earlier pass rewrote it (as a
    # `--check`, which settles nothing, counts it).
    return FileResult(path=result.path, findings=findings, old_source=result.old_source, new_source=new_source,
                      notes=list(dict.fromkeys(result.notes + again.notes)),
                      would_change=result.would_change or again.would_change,
                      libcst_parsed=result.libcst_parsed or again.libcst_parsed,
                      skipped=again.skipped and not rewritten_before)


def _first_changed_line(result: FileResult) -> int:
    """The first line the rewrite of `result` changes, in its original text (1 for a notebook's JSON)."""
    if result.path.endswith(".ipynb") or result.old_source is None or result.new_source is None:
        return 1
    old = result.old_source.decode("utf-8", "replace").splitlines()
    new = result.new_source.decode("utf-8", "replace").splitlines()
    for tag, i1, _, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            return i1 + 1
    return 1
