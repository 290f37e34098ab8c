"""The differential test of a move: the same findings and fixes before and after, over the golden cases,
the fuzzer's programs and real code.

Issue 45 moves decisions from libcst to `ast` one reading at a time; each step must leave what users
see unchanged, or change it only where a reviewed golden case shows the better answer. This runs the
command line of two revisions (a base commit, checked out in a temporary worktree, and the working
tree) on the same copies of the inputs, in `--check` mode and with `--in-place`, both with
`--unsafe-fixes` and no cache, and compares every finding (place, code, message, fix and its safety)
and every rewritten file byte for byte.

    python -m tests.harness.differential --base REV [--fuzz N] [--tree DIR ...] [--keep DIR]

Inputs: every golden case's original (single files side by side as one tree, each project case as a
tree of its own) and the examples; with `--fuzz N`, N programs the fuzzer's golden mutation draws
(derandomized: the same N each run); each `--tree` (a research repository, the installed packages).
Exit status 1 when anything differs, with each difference printed.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden"


@dataclass(frozen=True)
class Outcome:
    """What one revision's command line made of one tree: its findings, and the files it rewrote."""

    findings: tuple[tuple, ...]  # (run, relative path, cell, line, column, code, fix, applied, message, note)
    rewritten: dict[str, bytes]  # relative path -> the rewritten bytes, for the files --in-place changed
    errors: tuple[str, ...]


def inputs(dest: Path, fuzz: int = 0, trees: tuple[Path, ...] = ()) -> list[Path]:
    """The trees both revisions run on, written under `dest`."""
    if dest.exists():
        shutil.rmtree(dest)
    out = []
    files = dest / "golden-files"
    for case in sorted(GOLDEN.glob("*/*.py")):
        if not case.name.endswith(".expected.py") and case.parent.name not in ("projects", "verify-synthesis"):
            _copy(case, files / f"{case.parent.name}__{case.name}")
    for notebook in sorted(GOLDEN.glob("notebooks/*.ipynb")):
        _copy(notebook, files / f"notebooks__{notebook.name}")
    for example in sorted((ROOT / "examples").glob("*")):
        if example.suffix in (".py", ".ipynb"):
            _copy(example, files / f"examples__{example.name}")
    out.append(files)
    for project in sorted(p for p in (GOLDEN / "projects").iterdir() if p.is_dir()):
        target = dest / f"project-{project.name}"
        shutil.copytree(project, target, ignore=shutil.ignore_patterns("*.expected.py", "*.snap", "expected", "__pycache__"))
        out.append(target)
    if fuzz:
        programs = dest / "fuzz"
        for i, source in enumerate(fuzz_programs(fuzz)):
            _copy_bytes(source, programs / f"fuzz_{i:04d}.py")
        out.append(programs)
    for i, tree in enumerate(trees):
        target = dest / f"tree-{tree.name}"
        if target.exists():  # two trees of one name (a package, and its copy in another corpus)
            target = dest / f"tree-{tree.name}-{i}"
        shutil.copytree(tree, target, symlinks=True, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.pyc"))
        out.append(target)
    return out


def fuzz_programs(count: int) -> list[bytes]:
    """`count` mutated golden cases, drawn as tests/test_fuzz.py draws them, the same ones every run."""
    from hypothesis import HealthCheck, given, settings

    from tests.test_fuzz import mutated_golden

    drawn: list[bytes] = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(mutated_golden())
    def draw(source: bytes) -> None:
        if source not in drawn:
            drawn.append(source)

    draw()
    return drawn[:count]


def run(revision: Path, tree: Path, work: Path) -> Outcome:
    """`revision`'s command line over a fresh copy of `tree`: findings in `--check` and with `--in-place` (the
    fixpoint's: which fixes were applied, and what is left, depends on the order fixes that overlap are taken
    in), and the files `--in-place` rewrites."""
    copy = work / "tree" / tree.name  # (its own name: a package's relative imports and paths as in the original)
    if copy.parent.exists():
        shutil.rmtree(copy.parent)
    shutil.copytree(tree, copy, symlinks=True)
    # Run from an empty folder: `-m` puts the working folder first on sys.path, where a tree named like a
    # module of the standard library (`copy`, a package's own `math`) would shadow it.
    empty = work / "cwd"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(revision), "PYTHONHASHSEED": "0"}
    common = [sys.executable, "-m", "rewriter.cli", "check", "--no-cache", "--no-progress", "--unsafe-fixes",
              "--output-format", "json", "--jobs", "1"]
    checked = _json(subprocess.run([*common, str(copy)], capture_output=True, env=env, cwd=empty, check=False))
    before = _files(copy)
    fixed = _json(subprocess.run([*common, "--in-place", str(copy)], capture_output=True, env=env, cwd=empty, check=False))
    after = _files(copy)
    findings = tuple(sorted(
        (run, os.path.relpath(f["path"], copy), f.get("cell") or 0, f["span"]["line"], f["span"]["column"], f["code"],
         _fix(f.get("fix")), bool(f.get("applied")), f["message"], f.get("note") or "")
        for run, found in (("check", checked), ("in-place", fixed)) for f in found.get("findings", [])))
    errors = tuple(sorted(f"{os.path.relpath(e['path'], copy)}: {e['message']}" if isinstance(e, dict) else str(e)
                          for e in checked.get("errors", [])))
    return Outcome(findings, {path: data for path, data in after.items() if before.get(path) != data}, errors)


def compare(name: str, base: Outcome, new: Outcome) -> list[str]:
    """Every difference, as lines a person reads (`-` base, `+` new)."""
    out = []
    for finding in sorted(set(base.findings) - set(new.findings)):
        out.append(f"{name}: - {_finding(finding)}")
    for finding in sorted(set(new.findings) - set(base.findings)):
        out.append(f"{name}: + {_finding(finding)}")
    for error in sorted(set(base.errors) ^ set(new.errors)):
        out.append(f"{name}: {'-' if error in base.errors else '+'} error {error}")
    for path in sorted(base.rewritten.keys() | new.rewritten.keys()):
        a, b = base.rewritten.get(path), new.rewritten.get(path)
        if a != b:
            diff = difflib.unified_diff(_lines(a), _lines(b), f"base/{path}", f"new/{path}", n=2)
            out.append(f"{name}: the rewrite of {path} differs\n" + "".join(diff))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the revision to compare with (a commit, branch or tag)")
    parser.add_argument("--fuzz", type=int, default=0, help="also N fuzzed programs")
    parser.add_argument("--tree", type=Path, action="append", default=[], help="also a tree of real code")
    parser.add_argument("--keep", type=Path, help="write the inputs and outcomes here, and keep them")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="phiml-differential-") as temporary:
        work = args.keep or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        base = work / "base"
        if base.exists():
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base],
                       check=True, capture_output=True)
        try:
            trees = inputs(work / "inputs", args.fuzz, tuple(args.tree))
            differences: list[str] = []
            totals = [0, 0]
            for tree in trees:
                old, new = run(base, tree, work), run(ROOT, tree, work)
                totals[0] += len(new.findings)
                totals[1] += len(new.rewritten)
                differences += compare(tree.name, old, new)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    print("\n".join(differences))
    print(f"{len(trees)} trees, {totals[0]} findings and {totals[1]} rewritten files at the working tree; "
          f"{len(differences)} differences from {args.base}")
    return 1 if differences else 0


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def _copy_bytes(data: bytes, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
            and p.suffix in (".py", ".ipynb")}


def _json(done: subprocess.CompletedProcess) -> dict:
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"the command line did not print json (exit {done.returncode}):\n{done.stderr.decode()[-2000:]}") from None


def _fix(fix: dict | None) -> str:
    return "" if not fix else f"{fix.get('safety')}: {fix.get('description')}"


def _finding(finding: tuple) -> str:
    run, path, cell, line, column, code, fix, applied, message, note = finding
    place = f"{path}{f' cell {cell}' if cell else ''}:{line}:{column}{' (in place)' if run == 'in-place' else ''}"
    return f"{place} {code} [{fix or 'no fix'}{', applied' if applied else ''}] {message}{f' (note: {note})' if note else ''}"


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)


if __name__ == "__main__":
    sys.exit(main())
