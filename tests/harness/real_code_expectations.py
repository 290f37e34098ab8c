"""The reviewed findings of the real-code check: the file format, the comparison, and the accept merge.

Every finding phiml-rewrite reports on the installed packages is an entry of
tests/real_code_expectations.json with a verdict a person wrote. The check compares the findings of a
run with the file as snapshot tests do; accepting a run rewrites the file and keeps each verdict whose
finding is still there, so that only what is new needs a person again.

An entry is recognised by its code, its file and an anchor: the line number and the line's stripped
text. Same text at another line is the same finding moved by an edit above it (a pure line shift).
"""
from __future__ import annotations

import collections
import json
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

UNREVIEWED = "unreviewed"
CORRECT = "correct"
# `correct`, or `false-positive (accepted: <why>)`: a false positive with the reason it is tolerated.
VERDICT = re.compile(r"^(correct|false-positive \(accepted: \S.*\))$")
ACCEPT_COMMAND = "make accept-real-code"


@dataclass(frozen=True)
class Entry:
    code: str
    file: str  # relative to the directory holding the package: jax/_src/numpy/einsum.py
    line: int
    text: str  # the line's stripped source text (the anchor)
    fix: str | None  # the fix's safety (safe, unsafe, display), None without a fix
    applied: bool
    message: str
    verdict: str = UNREVIEWED
    note: str = ""

    @property
    def anchor(self) -> tuple[str, str, str]:
        """What stays the same when lines above the finding are added or removed."""
        return self.code, self.file, self.text

    @property
    def outcome(self) -> tuple[str | None, bool, str]:
        """What the tool did about the finding; a verdict is about a finding *and* what was done."""
        return self.fix, self.applied, self.message

    def where(self) -> str:
        fix = f"{self.fix} fix {'applied' if self.applied else 'not applied'}" if self.fix else "no fix"
        return f"{self.file}:{self.line} {self.code} ({fix}): {self.text!r}"


@dataclass
class Expectations:
    packages: dict[str, str]  # distribution -> version the entries were reviewed on
    entries: list[Entry]

    def save(self, path: Path) -> None:
        """Sorted, one entry per line: a review shows up in a diff as the lines it changed."""
        entries = sorted(self.entries, key=lambda e: (e.file, e.line, e.code, e.text, e.message))
        lines = ",\n".join("    " + json.dumps(asdict(e), ensure_ascii=False) for e in entries)
        path.write_text(
            "{\n"
            f'  "about": {json.dumps(ABOUT)},\n'
            f'  "packages": {json.dumps(dict(sorted(self.packages.items())))},\n'
            f'  "findings": [\n{lines}\n  ]\n'
            "}\n"
        )

    @classmethod
    def load(cls, path: Path) -> Expectations:
        if not path.exists():
            return cls({}, [])
        data = json.loads(path.read_text())
        return cls(data.get("packages", {}), [Entry(**e) for e in data.get("findings", [])])


ABOUT = ("Every finding of `phiml-rewrite --in-place --unsafe-fixes` over the installed jax, phiml, phi, "
         "equinox and diffrax, with a person's verdict: 'correct' or 'false-positive (accepted: <why>)'. "
         f"tests/test_real_code.py fails on any difference and on 'unreviewed'; `{ACCEPT_COMMAND}` rewrites "
         "this file from a fresh run, keeping the verdicts of the findings still there.")


@dataclass
class Pairing:
    """Observed findings paired with expected entries: exact, moved (same anchor, other line), or alone."""

    exact: list[tuple[Entry, Entry]] = field(default_factory=list)  # (expected, observed)
    moved: list[tuple[Entry, Entry]] = field(default_factory=list)
    new: list[Entry] = field(default_factory=list)
    vanished: list[Entry] = field(default_factory=list)


def pair(expected: list[Entry], observed: list[Entry]) -> Pairing:
    """Same line first; what is left of an anchor pairs up in line order (a block of lines that moved)."""
    result = Pairing()
    by_anchor: dict[tuple, list[Entry]] = collections.defaultdict(list)
    for e in expected:
        by_anchor[e.anchor].append(e)
    leftover: dict[tuple, list[Entry]] = collections.defaultdict(list)
    for o in sorted(observed, key=lambda e: e.line):
        same_line = next((e for e in by_anchor[o.anchor] if e.line == o.line), None)
        if same_line is None:
            leftover[o.anchor].append(o)
        else:
            by_anchor[o.anchor].remove(same_line)
            result.exact.append((same_line, o))
    for anchor, observed_left in leftover.items():
        expected_left = sorted(by_anchor[anchor], key=lambda e: e.line)
        result.moved += zip(expected_left, observed_left)
        result.new += observed_left[len(expected_left):]
        by_anchor[anchor] = expected_left[len(observed_left):]
    result.vanished = [e for left in by_anchor.values() for e in left]
    return result


def differences(expected: Expectations, observed: list[Entry], packages: dict[str, str]) -> list[str]:
    """Why the run does not match the reviewed file; empty: it matches and every entry is reviewed."""
    p = pair(expected.entries, observed)
    out = []
    if expected.packages != packages:
        out.append(f"the entries were reviewed on {expected.packages}, installed are {packages}")
    out += [f"new finding, not reviewed: {o.where()} - {o.message}" for o in p.new]
    out += [f"finding gone: {e.where()}" for e in p.vanished]
    out += [f"moved from line {e.line}: {o.where()}" for e, o in p.moved]
    out += [f"changed: {o.where()}: {_change(e, o)}" for e, o in p.exact + p.moved if e.outcome != o.outcome]
    for e in expected.entries:
        if e.verdict == UNREVIEWED:
            out.append(f"unreviewed: {e.where()}")
        elif not VERDICT.match(e.verdict):
            out.append(f"verdict {e.verdict!r} is neither 'correct' nor 'false-positive (accepted: <why>)': "
                       f"{e.where()}")
    return out


def _change(was: Entry, now: Entry) -> str:
    parts = [f"{name} {a} -> {b}" for name, a, b in (("fix", was.fix, now.fix), ("applied", was.applied, now.applied))
             if a != b]
    if was.message != now.message:
        parts.append(f"message now {now.message!r}")
    return "; ".join(parts)


def accept(expected: Expectations, observed: list[Entry], packages: dict[str, str]) -> tuple[Expectations, dict]:
    """The file a run makes: observed findings, with the verdict and note of the entry each one still is.

    A finding whose fix or message changed keeps its note but needs a person again: a verdict on a finding
    without a fix says nothing about a fix that is now applied.
    """
    p = pair(expected.entries, observed)
    kept, again = [], []
    for e, o in p.exact + p.moved:
        if (e.fix, e.applied) == (o.fix, o.applied):
            kept.append(replace(o, verdict=e.verdict, note=e.note))
        else:
            was = f"was {e.verdict!r} with fix={e.fix} applied={e.applied}"
            again.append(replace(o, verdict=UNREVIEWED, note=f"{was}; {e.note}" if e.note else was))
    counts = {"kept": len(kept), "to review again": len(again), "new": len(p.new), "gone": len(p.vanished),
              "moved": len(p.moved)}
    return Expectations(packages, kept + again + list(p.new)), counts
