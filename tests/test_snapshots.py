"""Every golden case's findings, as the user reads them, are pinned in its snapshot (tests/harness/snapshots.py):
a change of a message, a fix title, a note (the refusal reasons the rule pages promise) or a related
place shows here, and `make accept-snapshots` takes it after review."""
from __future__ import annotations

import difflib
import re

import pytest

from tests.harness.snapshots import GOLDEN, snapshots

SNAPSHOTS = snapshots()


@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=lambda s: s.id)
def test_findings_match_the_snapshot(snapshot):
    """And each message is read in one glance; the places it refers to are related locations (which
    editors keep current as the text moves), never line numbers in its text."""
    for finding in snapshot.found:
        assert len(finding.message) <= 250, finding.message
        for text in (finding.message, finding.help, finding.note):
            assert not re.search(r"\blines? \d|cell \d+, line", text), text
    produced, stored = snapshot.render(), snapshot.stored()
    if produced != stored:
        diff = "".join(difflib.unified_diff(stored.splitlines(True), produced.splitlines(True),
                                            str(snapshot.path.relative_to(GOLDEN)), "now"))
        pytest.fail(f"the findings of {snapshot.id} changed; after review, `make accept-snapshots`:\n{diff}")


def test_no_snapshot_without_a_case():
    known = {s.path for s in SNAPSHOTS}
    assert sorted(p for p in GOLDEN.rglob("*.snap") if p not in known) == []


def test_refusal_reasons_are_pinned():
    """The rule pages promise why a fix is refused ("not hoisted: ...", "not rewritten: ..."): some
    golden case must show each kind, so a change of them is a snapshot change."""
    text = "".join(s.stored() for s in SNAPSHOTS)
    for kind in ("not hoisted:", "not lifted:", "not rewritten:", "not fixed:"):
        assert f"note: {kind}" in text, kind
