"""The real-code check of tests/test_real_code.py, and the command that accepts a reviewed change of it.

One `phiml-rewrite --in-place --unsafe-fixes --no-cache` run over copies of the installed jax, phiml,
phi (PhiFlow), equinox and diffrax, through the real_code benchmark (no crash, every file parses,
untouched files byte-identical, a second run changes nothing, the smoke programs print the same with
the rewritten copies as with the originals); then, from that run's JSON, each applied fix's module
and unit imported from the copies (tests/harness/real_code_imports.py), and every finding compared with the
reviewed ones of tests/real_code_expectations.json (tests/harness/real_code_expectations.py).

    python -m tests.harness.real_code            run it: the summary, and what differs from the reviewed file
    python -m tests.harness.real_code --accept   rewrite the reviewed file from the run (make accept-real-code)
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from benchmarks import real_code
from benchmarks._common import fmt_table
from tests.harness.real_code_expectations import UNREVIEWED, Entry, Expectations, accept, differences, pair
from tests.harness.real_code_imports import FAILED, OK, AppliedFix, FixImport, check_imports, enclosing_unit

PACKAGES = {"jax": "jax", "phiml": "phiml", "phi": "phiflow", "equinox": "equinox", "diffrax": "diffrax"}  # -> dist
EXPECTATIONS = Path(__file__).parent.parent / "real_code_expectations.json"
JOBS = 2


def installed_versions() -> dict[str, str]:
    """Distribution -> version of every package of the check. A missing one is an error, not a skip:
    a check that measures nothing must not pass."""
    found, missing = {}, []
    for name, dist in PACKAGES.items():
        try:
            real_code.source_dir(name)
            found[dist] = version(dist)
        except (ModuleNotFoundError, PackageNotFoundError):
            missing.append(dist)
    if missing:
        raise RuntimeError(f"the real-code check needs {', '.join(missing)}: `pip install -e '.[backends,dev]'` "
                           "installs them at the versions its expectations were reviewed on")
    return found


def original_file(file: str) -> Path:
    """The installed file a rewritten copy was made from (`file` as in an Entry: phi/field/_noise.py)."""
    return real_code.source_dir(Path(file).parts[0]).parent / file


@dataclass
class RealCodeRun:
    packages: dict[str, str]
    report: dict  # the real_code benchmark's: its failures are this check's too
    entries: list[Entry]  # every finding
    imports: list[FixImport]  # every applied fix
    scanned: tuple[int, int]  # files the CLI processed, Python files in the copied tree
    wall_s: float

    def run_problems(self) -> list[str]:
        """What is wrong with the run itself, whatever the reviewed file says."""
        out = [f"real_code benchmark: {f}" for f in self.report["failures"]]
        if self.scanned[0] != self.scanned[1]:
            out.append(f"the CLI processed {self.scanned[0]} files of the {self.scanned[1]} in the copied packages")
        out += [f"{i.fix.safety} fix {i.fix.code} at {i.fix.file}:{i.fix.line} ({i.module}, {i.fix.unit or 'module'}): "
                f"{i.detail}" for i in self.imports if i.status == FAILED]
        # Library code its authors run under jit has static control flow: a PML201-PML203 fix there, even
        # an unsafe one, would rewrite working code (the precision benchmark's claim, on every package).
        out += [f"control flow rewritten in library code: {e.code} at {e.file}:{e.line} ({e.fix} fix)"
                for e in self.entries if e.code in ("PML201", "PML202", "PML203") and e.fix]
        return out

    def problems(self, expected: Expectations) -> list[str]:
        return self.run_problems() + differences(expected, self.entries, self.packages)

    def summary(self, expected: Expectations) -> str:
        out = [f"real-code check: {', '.join(f'{d} {v}' for d, v in self.packages.items())}; "
               f"{self.report.get('files', '?')} files, {self.report.get('lines', '?')} lines; {self.wall_s:.0f} s wall",
               f"rewrite: {self.report.get('wall_s', '?')} s wall, {self.report.get('cpu_s', '?')} s CPU, "
               f"jobs {self.report['jobs']}; second run: {self.report.get('second_run_scope', '?')}, "
               f"{self.report.get('second_run_applied', 0)} applied",
               _findings_table(expected, self.entries)]
        for safety in ("safe", "unsafe"):
            mine = [i for i in self.imports if i.fix.safety == safety]
            out.append(f"{safety} fixes applied: {len(mine)}, module and unit import from the copy: "
                       f"{sum(i.status == OK for i in mine)}")
            out += [f"  {i.fix.file}:{i.fix.line} {i.fix.code} -> {i.module}:{i.fix.unit or '<module>'}: {i.status}"
                    + (f" ({i.detail})" if i.detail else "") for i in mine]
        for name, smoke in self.report.get("smoke", {}).items():
            out.append(f"smoke {name}: {'same output' if smoke['same'] else 'DIFFERS'} ({smoke['rewritten'][:80]})")
        return "\n".join(out)


def _findings_table(expected: Expectations, observed: list[Entry]) -> str:
    """Per code: findings, fixes applied by safety, fixes not applied, and the verdicts on file."""
    paired = pair(expected.entries, observed)
    verdict_of = {id(o): e.verdict for e, o in paired.exact + paired.moved}
    rows = []
    for code in sorted({e.code for e in observed}):
        mine = [e for e in observed if e.code == code]
        verdicts = [verdict_of.get(id(e), UNREVIEWED) for e in mine]
        rows.append([code, len(mine), sum(e.applied and e.fix == "safe" for e in mine),
                     sum(e.applied and e.fix == "unsafe" for e in mine), sum(bool(e.fix) and not e.applied for e in mine),
                     sum(v.startswith("false-positive") for v in verdicts), verdicts.count(UNREVIEWED)])
    header = ["code", "findings", "safe fixed", "unsafe fixed", "fix not applied", "false positive", "unreviewed"]
    return fmt_table([list(map(str, r)) for r in rows], header)


def run(root: Path, jobs: int = JOBS) -> RealCodeRun:
    """The whole check, in `root` (a fresh directory); the rewritten copies stay in real_code.work_dir(root)."""
    start = time.perf_counter()
    packages = installed_versions()
    report, data = real_code.rewrite_and_check(list(PACKAGES), root, jobs=jobs)
    work = real_code.work_dir(root).resolve()
    entries = [_entry(f, root, work) for f in (data or {}).get("findings", [])]
    fixes = [AppliedFix(e.code, e.fix, e.file, e.line, enclosing_unit(original_file(e.file).read_text("utf-8"), e.line))
             for e in entries if e.applied]
    imports = check_imports(fixes, work)
    python_files = sum(1 for p in work.rglob("*") if p.suffix in (".py", ".pyi") and p.is_file())
    scanned = ((data or {}).get("summary") or {}).get("files", 0), python_files
    return RealCodeRun(packages, report, entries, imports, scanned, time.perf_counter() - start)


def _entry(finding: dict, root: Path, work: Path) -> Entry:
    """A finding as an expectations entry. Applied fixes are placed in the original file, the rest in the
    rewritten one: with --in-place, the findings left are those of the last pass, over the final code."""
    path = real_code.resolve_path(finding["path"], root)
    file = path.relative_to(work).as_posix()
    line = finding["span"]["line"]
    source = (original_file(file) if finding.get("applied") else path).read_text("utf-8", errors="replace")
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    fix = finding["fix"]["safety"] if finding.get("fix") else None
    return Entry(finding["code"], file, line, text, fix, bool(finding.get("applied")), finding["message"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.harness.real_code", description=__doc__.splitlines()[0])
    ap.add_argument("--accept", action="store_true",
                    help=f"rewrite {EXPECTATIONS.name} from this run, keeping the verdicts of findings still there")
    ap.add_argument("--jobs", type=int, default=JOBS)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="real-code-check-") as tmp:
        result = run(Path(tmp), a.jobs)
    expected = Expectations.load(EXPECTATIONS)
    print(result.summary(expected))
    if not a.accept:
        problems = result.problems(expected)
        print(*problems, sep="\n")
        return 1 if problems else 0
    if result.run_problems():
        print("not accepted, the run itself fails:", *result.run_problems(), sep="\n")
        return 1
    accepted, counts = accept(expected, result.entries, result.packages)
    accepted.save(EXPECTATIONS)
    unreviewed = sum(e.verdict == UNREVIEWED for e in accepted.entries)
    print(f"{EXPECTATIONS} rewritten: " + ", ".join(f"{n} {what}" for what, n in counts.items())
          + (f"; review the {unreviewed} 'unreviewed' entries" if unreviewed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
