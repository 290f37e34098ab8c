"""Precision and recall: what every rule finds, fixes and refuses on real code, and how much of it is right.

Two kinds of sources:
  * the installed phiml, phi, jax (its _src included), equinox and diffrax: library code its authors test
    under jit. Every PML201 (traced-if), PML202 (traced-for) or PML203 (traced-while) fix there rewrites
    static control flow, a false positive: the benchmark FAILS on one. Every finding there is also
    reviewed by a person in tests/real_code_expectations.json (tests/test_real_code.py): the report
    gives each rule's correct / false-positive counts from those verdicts (its precision).
  * research repositories you fetched and keep outside the project (`--repos DIR ...`, or the
    colon-separated $PHIML_REWRITE_CORPUS): PhiFlow with its demos, PhiML's docs and tests, jax-md,
    jax-cfd, diffrax... Where the hazards are (recall) is counted per repository and rule: findings,
    fixes by safety, refusals (reported with the reason a fix was not written) and notes ("cannot tell",
    info). Notebooks are not read yet (issue: notebooks as first-class input); convert them first if
    you want them counted.

Read-only: `phiml-rewrite --check --unsafe-fixes --output-format json` with every registered rule, one run
per group of sources (no copy; check mode writes nothing). Other checks (each failure fails the benchmark):
no crash, the JSON output parses, no per-file `errors`.

Importable: `run(sources=[Path(...)], limit=20, jobs=1)` checks a small subset (for tests).
Run alone: python -m benchmarks precision [--packages jax phiml phi] [--repos DIR ...] [--limit N]
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from importlib.metadata import packages_distributions, version
from pathlib import Path

from ._common import cli_command, cli_status, count_lines, file_errors, fmt_table, package_dir, quiet_env, run_child

NAME = "precision"
DEFAULT_PACKAGES = ("phiml", "phi", "jax")
OPTIONAL_PACKAGES = ("equinox", "diffrax")  # scanned if installed
CONTROL_FLOW = ("PML201", "PML202", "PML203")  # a fix of one of these in library code is a false positive
INFORMATIONAL = ("PML204", "PML205", "PML401")  # their fixes are listed, not counted against precision
PYTHON_SUFFIXES = (".py", ".pyi")  # what the CLI collects from a directory


def registered_codes() -> list[str]:
    """The codes `phiml-rewrite rules` lists (the CLI rejects unknown codes in --select)."""
    child = run_child([*cli_command(), "rules", "--output-format", "json"], env=quiet_env(), timeout=120)
    if child.returncode != 0:
        raise RuntimeError(f"`phiml-rewrite rules` {child.brief()}: {child.stderr.strip()[-300:]}")
    return [rule["code"] for rule in json.loads(child.stdout)]


def _python_files(src: Path) -> list[Path]:
    if src.is_file():
        return [src]
    return sorted(p for p in src.rglob("*") if p.suffix in PYTHON_SUFFIXES and "__pycache__" not in p.parts
                  and p.is_file())


def _distribution(src: Path, installed: dict[str, list[str]]) -> str | None:
    """`phiflow 3.4.0` for site-packages/phi/... ; None for a source that is not an installed package."""
    for parent in (src, *src.parents):
        dists = installed.get(parent.name)
        if dists and parent.parent.name in ("site-packages", "dist-packages"):
            return f"{dists[0]} {version(dists[0])}"
    return None


def _shown(path: str, roots: list[Path]) -> str:
    """A finding's path from its package (`jax/_src/lax/lax.py`), or from the directory holding its source."""
    p = Path(path)
    for root in roots:
        if p == root or root in p.parents:
            base = next((d for d in root.parents if d.name in ("site-packages", "dist-packages")), root.parent)
            return str(p.relative_to(base))
    return path


def tally(data: dict, roots: list[Path]) -> dict:
    """Per-code counts of the CLI's JSON document, and every finding with a fix, split into the control-flow
    ones (PML201-PML203: failures) and the PML204/PML205 ones (informational)."""
    findings = data.get("findings", [])
    per_code = collections.Counter(f.get("code") for f in findings)
    fixed = [f for f in findings if f.get("fix") is not None]
    fixes_per_code = collections.Counter(f.get("code") for f in fixed)

    def listed(codes):
        return [{"path": _shown(f["path"], roots), "line": f["span"]["line"], "code": f["code"],
                 "safety": f["fix"]["safety"], "message": f["message"], "fix": f["fix"]["description"]}
                for f in sorted(fixed, key=lambda f: (f["path"], f["span"]["line"], f["code"])) if f["code"] in codes]

    return {"findings_per_code": dict(sorted(per_code.items())), "fixes_per_code": dict(sorted(fixes_per_code.items())),
            "control_flow_fixes": listed(CONTROL_FLOW), "informational_fixes": listed(INFORMATIONAL),
            "would_change_files": len(data.get("changed_files", []))}


def run(sources=None, limit: int | None = None, jobs: int | None = None, repos=None) -> dict:
    """`sources`: package names or directories/files (default: the installed phiml, phi, jax, and equinox and
    diffrax if installed). `limit`: only the first N Python files of each source, in sorted order.
    `repos`: fetched repositories to survey as well (default: $PHIML_REWRITE_CORPUS, colon-separated)."""
    jobs = jobs or os.cpu_count() or 1
    optional = () if sources else OPTIONAL_PACKAGES
    sources = list(sources or DEFAULT_PACKAGES)
    res: dict = {"name": NAME, "jobs": jobs, "ok": False, "failures": [], "notes": [], "skipped": None,
                 "sources": [str(s) for s in sources]}
    cli_ok, why = cli_status()
    if not cli_ok:
        res["failures"].append(f"phiml-rewrite not runnable: {why}")
        return res

    roots: list[Path] = []
    for s in [*sources, *optional]:
        # a bare name ("phiml") is an installed package; a Path or a string with a separator is a path
        try:
            roots.append(package_dir(s) if isinstance(s, str) and os.sep not in s else Path(s).resolve())
        except ModuleNotFoundError:
            if s in optional:
                res["notes"].append(f"{s} is not installed: skipped")
            else:
                res["failures"].append(f"package {s!r} is not installed")
        else:
            if s in optional:
                res["sources"].append(s)
    missing = [str(r) for r in roots if not r.exists()]
    if missing:
        res["failures"].append(f"no such file or directory: {missing}")
    if res["failures"]:
        return res
    installed = packages_distributions()
    res["packages"] = sorted({d for d in (_distribution(r, installed) for r in roots) if d})

    files = [f for r in roots for f in _python_files(r)[:limit]]
    res["files"] = len(files)
    res["lines"] = count_lines(files)

    try:
        registered = registered_codes()
    except (RuntimeError, json.JSONDecodeError, subprocess.TimeoutExpired) as e:
        res["failures"].append(f"cannot list the rules: {e}")
        return res
    selected = list(registered)  # every rule: the survey counts them all; the check looks at PML201-PML203
    res["selected"] = selected
    res["not_registered"] = [c for c in (*CONTROL_FLOW, *INFORMATIONAL) if c not in registered]
    if not any(c in registered for c in CONTROL_FLOW):
        res["skipped"] = f"none of {', '.join(CONTROL_FLOW)} is registered yet (`phiml-rewrite rules`)"
        res["ok"] = not res["failures"]
        return res

    # Directories go to the CLI as they are (its own discovery, as a user would run it); with a limit, the files.
    targets = files if limit is not None else roots
    data = _check(targets, selected, jobs, res)
    if data is None:
        return res

    res["summary"] = data.get("summary")
    res["errors"] = data.get("errors", [])
    if res["errors"]:
        res["failures"].append(file_errors(res["errors"]))
    scanned = (res["summary"] or {}).get("files")
    if scanned != res["files"]:
        res["notes"].append(f"the CLI scanned {scanned} files; {res['files']} Python files are under the sources")
    res.update(tally(data, roots))
    res["survey"] = {"installed": survey(data, roots, reviewed=_verdicts())}
    if res["control_flow_fixes"]:
        res["failures"].append(f"{len(res['control_flow_fixes'])} rewrite(s) of static control flow "
                               f"({', '.join(CONTROL_FLOW)} fixes in library code)")
    if repos is None:
        repos = [Path(p) for p in os.environ.get("PHIML_REWRITE_CORPUS", "").split(":") if p]
    survey_repos([Path(r) for r in repos], selected, jobs, res)
    res["ok"] = not res["failures"]
    return res


def _check(targets, selected, jobs: int, res: dict, strict: bool = True) -> dict | None:
    """One `--check --unsafe-fixes` run as JSON; failures and timing go into `res` (None: no usable output).
    Not `strict` (fetched repositories): files the tool cannot process (exit 2) are the repositories' business."""
    cmd = [*cli_command(), "--check", "--select", ",".join(selected), "--unsafe-fixes", "--output-format", "json",
           "--no-progress", "--no-cache", "--jobs", str(jobs), *map(str, targets)]
    with tempfile.TemporaryDirectory(prefix="bench-precision-") as cwd:  # a neutral directory: nothing of ours applies
        try:
            child = run_child(cmd, cwd=Path(cwd), env=quiet_env())
        except subprocess.TimeoutExpired as e:
            res["failures"].append(f"phiml-rewrite timed out after {e.timeout:.0f} s")
            return None
    res.setdefault("exit_code", child.returncode)
    res["wall_s"] = round(res.get("wall_s", 0) + child.wall, 3)
    res["cpu_s"] = round(res.get("cpu_s", 0) + child.cpu, 3)
    if "lines" in res:
        res["lines_per_s"] = round(res["lines"] / res["wall_s"]) if res["wall_s"] else None
    if child.returncode not in ((0, 1) if strict else (0, 1, 2)):
        res["failures"].append(f"exit code {child.returncode} (stderr tail: {child.stderr.strip()[-600:]!r})")
    try:
        return json.loads(child.stdout)
    except json.JSONDecodeError as e:
        res["failures"].append(f"stdout is not one JSON document ({e}); first 300 chars: {child.stdout[:300]!r}")
        return None


# What a finding is, as the survey counts it.
OUTCOMES = ("safe fix", "unsafe fix", "refused", "note")


def outcome(finding: dict) -> str:
    """safe fix / unsafe fix (a fix of that safety), note (info: "cannot tell"), refused (reported: the rule
    could not fix it here, or it is a hazard that is only reported)."""
    fix = finding.get("fix")
    if fix is not None and fix.get("safety") in ("safe", "unsafe"):
        return f"{fix['safety']} fix"
    return "note" if finding.get("severity") == "info" else "refused"


def survey(data: dict, roots: list[Path], reviewed: dict | None = None) -> dict:
    """Per source (a root) and rule: how many findings of each outcome; with `reviewed` verdicts (file, line,
    code -> verdict), how many of them a person judged correct or a false positive."""
    out: dict = {}
    for finding in data.get("findings", []):
        shown = _shown(finding["path"], roots)
        root = shown.split("/", 1)[0]
        row = out.setdefault(root, {}).setdefault(finding["code"], collections.Counter())
        row[outcome(finding)] += 1
        if reviewed is not None:
            verdict = reviewed.get((shown, finding["span"]["line"], finding["code"]))
            row["correct" if verdict == "correct" else "false positive" if verdict else "unreviewed"] += 1
    return {root: {code: dict(counts) for code, counts in sorted(codes.items())} for root, codes in sorted(out.items())}


def _verdicts() -> dict:
    """(file, line, code) -> verdict, from the reviewed real-code snapshot (tests/real_code_expectations.json)."""
    path = Path(__file__).resolve().parent.parent / "tests" / "real_code_expectations.json"
    if not path.exists():
        return {}
    entries = json.loads(path.read_text()).get("findings", [])
    return {(e["file"], e["line"], e["code"]): e["verdict"].split(" ")[0] for e in entries}


def survey_repos(repos: list[Path], selected: list[str], jobs: int, res: dict) -> None:
    """Fetched repositories (kept outside the project): one check run over all, counted per repository."""
    present = [r.resolve() for r in repos if r.exists()]
    res["notes"] += [f"repository {r} not found: skipped" for r in repos if not r.exists()]
    if not present:
        return
    data = _check(present, selected, jobs, res, strict=False)
    if data is None:
        return
    if data.get("errors"):
        res["notes"].append(f"{len(data['errors'])} file(s) of the repositories could not be processed: "
                            f"{file_errors(data['errors'])}")
    res["survey"]["repositories"] = survey(data, present)
    res["repository_files"] = (data.get("summary") or {}).get("files")


def _survey_table(per_source: dict, reviewed: bool) -> str:
    columns = list(OUTCOMES) + (["correct", "false positive", "unreviewed"] if reviewed else [])
    rows = []
    for source, codes in per_source.items():
        for code, counts in codes.items():
            findings = sum(counts.get(o, 0) for o in OUTCOMES)
            rows.append([source, code, str(findings), *(str(counts.get(c, 0)) for c in columns)])
    return fmt_table(rows, ["source", "code", "findings", *columns])


def _finding_line(f: dict) -> str:
    return f"  {f['path']}:{f['line']}  {f['code']} [{f['safety']}] {f['message']}"


def report(res: dict) -> str:
    out = [f"precision: {', '.join(res['sources'])} - {res.get('files', '?')} files, {res.get('lines', '?')} lines, "
           f"jobs={res['jobs']}"]
    if res.get("packages"):
        out.append("packages: " + ", ".join(res["packages"]))
    out += [f"note: {n}" for n in res["notes"]]
    if "selected" in res:
        out.append(f"selected: {', '.join(res['selected']) or 'nothing'}"
                   + (f" (not registered: {', '.join(res['not_registered'])})" if res["not_registered"] else ""))
    if res.get("skipped"):
        out.append(f"SKIPPED: {res['skipped']}")
    if "wall_s" in res:
        out.append(f"run: exit {res['exit_code']}, {res['wall_s']:.2f} s wall ({res['cpu_s']:.2f} s CPU), "
                   f"{res['lines_per_s']} lines/s")
    if "findings_per_code" in res:
        rows = [[c, str(res["findings_per_code"].get(c, 0)), str(res["fixes_per_code"].get(c, 0))]
                for c in res["selected"]]
        out.append(fmt_table(rows, ["code", "findings", "with fix"]))
        cf = res["control_flow_fixes"]
        out.append(f"static control flow rewrites ({'/'.join(CONTROL_FLOW)} fixes): {len(cf) or 'none'}")
        out += map(_finding_line, cf)
        info = res["informational_fixes"]
        out.append(f"{'/'.join(INFORMATIONAL)} fixes (informational): {len(info) or 'none'}")
        out += map(_finding_line, info)
        out.append(f"files that would change: {res['would_change_files']}")
    survey_ = res.get("survey", {})
    if survey_.get("installed"):
        out.append("installed packages, per rule (correct / false positive: the reviewed verdicts of tests/real_code_expectations.json):")
        out.append(_survey_table(survey_["installed"], reviewed=True))
    if survey_.get("repositories"):
        out.append(f"fetched repositories ({res.get('repository_files', '?')} files), per rule:")
        out.append(_survey_table(survey_["repositories"], reviewed=False))
    if not res.get("skipped"):
        out.append("checks: " + ("all passed (no crash, no static control flow rewritten)" if res["ok"] else "FAILED"))
    out += [f"FAILURE: {f}" for f in res["failures"]]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.precision", description=__doc__.splitlines()[0])
    ap.add_argument("--packages", nargs="+", default=None,
                    help="package names or paths (default: phiml phi jax, and equinox diffrax if installed)")
    ap.add_argument("--repos", nargs="*", default=None,
                    help="fetched repositories to survey (default: the colon-separated $PHIML_REWRITE_CORPUS)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N files of each source (sorted)")
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    res = run(a.packages, a.limit, a.jobs, repos=a.repos)
    print(json.dumps(res, indent=2) if a.json else report(res))
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
