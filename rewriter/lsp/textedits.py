"""The smallest text edits that turn one text into another.

A fix is computed as a new tree; an editor wants the few characters it changes, so that the cursor,
folds, marks and undo history of the rest of the buffer survive. Lines are matched first (difflib),
then each changed block is trimmed to the characters that differ.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class TextEdit:
    """Replace `old[start:end]` by `text` (offsets in characters of the old text)."""

    start: int
    end: int
    text: str


def minimal_edits(old: str, new: str) -> list[TextEdit]:
    """Non-overlapping edits in order; applying them to `old` gives `new`."""
    if old == new:
        return []
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    head = 0  # lines equal at both ends need no matching (a fix changes a few places of a long file)
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    edits = []
    matcher = difflib.SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        edits.append(_trimmed(starts[i1], "".join(a[i1:i2]), "".join(b[j1:j2])))
    return edits


def _trimmed(offset: int, old: str, new: str) -> TextEdit:
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    return TextEdit(offset + prefix, offset + len(old) - suffix, new[prefix : len(new) - suffix])


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """What an editor does with the edits (they are applied to the original, last first)."""
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[: edit.start] + edit.text + text[edit.end :]
    return text
