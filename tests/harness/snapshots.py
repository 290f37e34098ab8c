"""Snapshots: what the tool says about each golden case, pinned in a file beside it.

`golden/<rule>/<case>.snap` (a notebook's too; a project's is `golden/projects/<name>/findings.snap`)
holds every finding of the case as the text output prints it: place, code, fix marker, message, the
`help:` fix title, the `note:` and the related places. tests/test_snapshots.py compares; after a
reviewed change of wording,

    python -m tests.harness.snapshots --accept        (make accept-snapshots)

rewrites the files that differ, and `git diff golden/` is the review. A case without findings has no
snapshot file (its GOLDEN spec pins that already).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Callable

from rewriter import runner
from rewriter.engine import Settings, process_source
from rewriter.findings import Finding, format_text
from rewriter.notebooks import process_notebook
from rewriter.registry import all_codemods
from tests.harness.golden_cases import discover, notebook_paths, notebook_settings, notebook_spec, project_config, read_spec

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden"
HEADER = "# phiml-rewrite's findings on this golden case; `make accept-snapshots` rewrites it after a reviewed change.\n"


@dataclass(frozen=True)
class Snapshot:
    id: str  # `traced-if/phiml_helper`, `notebooks/hoist_jit_in_loop`, `projects/rebound_name`
    path: Path  # the .snap file
    findings: Callable[[], list[Finding]]  # paths relative to the case's folder

    @cached_property
    def found(self) -> list[Finding]:
        return sorted(self.findings(), key=lambda f: (f.path, f.cell or 0, f.span, f.code))

    def render(self) -> str:
        found = self.found
        if not found:
            return ""
        # The fix is shown as offered (marker and `help:`), whether or not this run applied it.
        return HEADER + "".join(format_text(replace(f, applied=False)) + "\n" for f in found)

    def stored(self) -> str:
        return self.path.read_text(encoding="utf-8") if self.path.exists() else ""


def _settings(spec: dict) -> Settings:
    return Settings(all_codemods(), unsafe_fixes=bool(spec.get("unsafe_fixes")))


def _module(path: Path) -> Callable[[], list[Finding]]:
    def findings() -> list[Finding]:
        source = path.read_bytes()
        return process_source(source, path.name, _settings(read_spec(source.decode()))).findings
    return findings


def _notebook(path: Path) -> Callable[[], list[Finding]]:
    def findings() -> list[Finding]:
        spec = notebook_spec(path)
        return process_notebook(path.read_bytes(), path.name, notebook_settings(path, spec, GOLDEN / "notebooks")).findings
    return findings


def _project(folder: Path) -> Callable[[], list[Finding]]:
    def findings() -> list[Finding]:
        spec = read_spec((folder / "main.py").read_text())
        config = project_config(folder, spec)
        report = runner.run([str(folder)], config, write=False, jobs=1)
        def relative(path: str) -> str:
            return Path(path).resolve().relative_to(folder.resolve()).as_posix()

        return [replace(f, path=relative(result.path),
                        related=tuple(replace(r, path=relative(r.path)) if r.path else r for r in f.related))
                for result in report.results for f in result.findings]
    return findings


def snapshots() -> list[Snapshot]:
    out = [Snapshot(case.id, case.path.with_suffix(".snap"), _module(case.path)) for case in discover(GOLDEN)]
    for path in notebook_paths(GOLDEN / "notebooks"):
        out.append(Snapshot(f"notebooks/{path.stem}", path.with_suffix(".snap"), _notebook(path)))
    for main in sorted((GOLDEN / "projects").glob("*/main.py")):
        out.append(Snapshot(f"projects/{main.parent.name}", main.parent / "findings.snap", _project(main.parent)))
    return out


def accept() -> list[str]:
    """Rewrite every snapshot that differs (and remove those of cases now without findings)."""
    changed = []
    for snap in snapshots():
        text = snap.render()
        if text == snap.stored():
            continue
        if text:
            snap.path.write_text(text, encoding="utf-8")
        else:
            snap.path.unlink()
        changed.append(snap.id)
    known = {snap.path for snap in snapshots()}
    for stale in GOLDEN.rglob("*.snap"):  # a case renamed or removed
        if stale not in known:
            stale.unlink()
            changed.append(str(stale.relative_to(GOLDEN)))
    return changed


if __name__ == "__main__":
    if sys.argv[1:] != ["--accept"]:
        sys.exit("usage: python -m tests.harness.snapshots --accept")
    for name in accept():
        print(f"updated {name}")
