"""`--in-place` on synthesized verdicts (`--verify auto`): every safe fix, the unsafe fixes of the
functions verified on every backend that ran, the provable merges (`report(provable=)`) of the
functions proven abstractly, none in a falsified or disproven function; and the count of each."""
from __future__ import annotations

import os
from pathlib import Path

from ...config import Config
from ...findings import FileResult, Safety
from ...units import unit_at, units
from .. import command as _verify
from .report import Synthesis

PROVEN, FALSIFIED, UNVERIFIABLE = "written as proven", "skipped as falsified", "skipped as unverifiable"
ABSTRACT = "of the written, by an abstract proof"  # a part of PROVEN: written in a function the draws did not verify


def apply_proven(options: _verify.Options, config: Config, synthesis: Synthesis) -> tuple[list[FileResult], dict[str, int]]:
    falsified = synthesis.falsified_units()
    proven = synthesis.proven_units()
    results = _verify.apply_units(options, config, synthesis.verified_units(), falsified, proven)
    counts = {PROVEN: 0, FALSIFIED: 0, UNVERIFIABLE: 0, ABSTRACT: 0}
    root = Path.cwd().resolve()
    for result in results:
        unsafe = [f for f in result.findings if f.fix is not None and f.fix.safety is Safety.UNSAFE]
        if not unsafe:
            continue
        rel = str(Path(os.path.abspath(result.path)).resolve().relative_to(root))
        found = units(result.old_source) if result.old_source is not None and rel.endswith(".py") else {}
        for finding in unsafe:
            unit = (rel, unit_at(found, finding.span.line)) if found else None
            if finding.applied:
                counts[PROVEN] += 1
                counts[ABSTRACT] += unit in proven
            elif unit in falsified:
                counts[FALSIFIED] += 1
            else:
                counts[UNVERIFIABLE] += 1
    return results, counts


def summary(counts: dict[str, int]) -> str:
    """One line whatever the width (scripts read it): `1 written as proven (1 by an abstract proof), ...`."""
    parts = [f"{n} {what}" for what, n in counts.items() if what != ABSTRACT]
    if counts.get(ABSTRACT):
        parts[0] += f" ({counts[ABSTRACT]} by an abstract proof)"
    return "unsafe fixes: " + ", ".join(parts)
