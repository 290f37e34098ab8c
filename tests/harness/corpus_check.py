"""The reviewed findings on public research repositories that are not ours (docs/real-code-corpus.md).

The repositories are pinned by commit in tests/corpus_verdicts.json and fetched outside the project
(their code is never copied into it); only our verdicts are kept here: every finding phiml-rewrite
reports on them with `--unsafe-fixes`, and a person's word on it.

    python -m tests.harness.corpus_check --corpus DIR            compare a run with the verdicts; the tallies
    python -m tests.harness.corpus_check --corpus DIR --accept   rewrite the verdicts from the run, keeping each
                                                         verdict whose finding is still there

DIR holds one folder per repository, named as in the verdicts file, at its pinned commit (or set
$PHIML_REWRITE_CORPUS). Verdicts: a finding with a fix is `correct` or `wrong: <why>` (the fix
changes what the program does, or breaks it); one without is `true` or `false: <why>`. A new
finding, or one whose fix or message changed, is `unreviewed` until a person writes its verdict.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

VERDICTS = Path(__file__).parent.parent / "corpus_verdicts.json"
UNREVIEWED = "unreviewed"


@dataclass(frozen=True)
class Entry:
    repo: str
    file: str  # relative to the repository
    line: int  # in its cell, for a notebook (`cell`)
    text: str  # the line's stripped text: the anchor that survives edits above it
    code: str
    fix: str | None  # safe, unsafe, display; None without a fix
    message: str
    note: str = ""
    cell: int | None = None
    verdict: str = UNREVIEWED

    @property
    def anchor(self) -> tuple:
        return self.repo, self.code, self.file, self.text

    @property
    def outcome(self) -> tuple:
        return self.fix, self.message

    @property
    def kind(self) -> str:
        return {"safe": "safe fix", "unsafe": "unsafe fix"}.get(self.fix or "", "report")

    @property
    def good(self) -> bool | None:
        """Whether the verdict says the finding (and its fix) is right; None when unreviewed."""
        if self.verdict.startswith(("correct", "true")):
            return True
        if self.verdict.startswith(("wrong", "false")):
            return False
        return None


def run(corpus: Path, repositories: list[dict]) -> list[Entry]:
    """Every finding of a `--unsafe-fixes` check run over each repository (its own project root)."""
    from rewriter import runner
    from rewriter.config import Config

    out = []
    for repo in repositories:
        folder = corpus / repo["name"]
        if not folder.is_dir():
            raise SystemExit(f"{folder}: missing; fetch {repo['repo']} at {repo['commit']} there (docs/real-code-corpus.md)")
        config = Config(root=str(folder), project_root=str(folder), unsafe_fixes=True)
        report = runner.run([str(folder)], config, write=False, jobs=2, rewrite=False)
        for result in report.results:
            lines = None
            for f in result.findings:
                if lines is None:
                    lines = _lines(result.path)
                own = lines.get(f.cell, [])
                text = own[f.span.line - 1].strip() if 0 < f.span.line <= len(own) else ""
                rel = os.path.relpath(result.path, folder)
                out.append(Entry(repo["name"], rel, f.span.line, text, f.code,
                                 f.fix.safety.value if f.fix else None, f.message, f.note, f.cell))
    return sorted(out, key=lambda e: (e.repo, e.file, e.line, e.code, e.message))


def _lines(path: str) -> dict:
    """The lines a finding's line number counts, by its cell (None for a module): a notebook's cells are
    numbered from 1, markdown included, as the findings number them."""
    if path.endswith(".ipynb"):
        try:
            cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
        except (OSError, ValueError, KeyError):
            return {}
        out = {}
        for number, cell in enumerate(cells, start=1):
            source = cell.get("source", "")
            out[number] = ("".join(source) if isinstance(source, list) else source).splitlines()
        return out
    return {None: Path(path).read_text(encoding="utf-8", errors="replace").splitlines()}


def load() -> tuple[dict, list[Entry]]:
    data = json.loads(VERDICTS.read_text())
    return data, [Entry(**e) for e in data["findings"]]


def merge(found: list[Entry], reviewed: list[Entry]) -> list[Entry]:
    """`found`, each with the verdict of the reviewed entry of its anchor and outcome (or unreviewed)."""
    by_anchor = collections.defaultdict(list)
    for entry in reviewed:
        by_anchor[entry.anchor].append(entry)
    out = []
    for entry in found:
        match = next((r for r in by_anchor[entry.anchor] if r.outcome == entry.outcome), None)
        if match is not None:
            by_anchor[entry.anchor].remove(match)
            out.append(replace(entry, verdict=match.verdict))
        else:
            out.append(entry)
    return out


def tallies(entries: list[Entry]) -> dict:
    """repository -> kind -> [right, wrong, unreviewed]."""
    out: dict = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0, 0]))
    for entry in entries:
        for repo in (entry.repo, "all"):
            slot = out[repo][entry.kind]
            slot[0 if entry.good else 1 if entry.good is False else 2] += 1
    return out


def table(entries: list[Entry], repositories: list[dict]) -> str:
    counts = tallies(entries)
    rows = ["| repository | safe fixes correct / wrong | unsafe fixes correct / wrong | reports true / false | unreviewed |",
            "|---|---|---|---|---|"]
    for name in [r["name"] for r in repositories] + ["all"]:
        c = counts.get(name, {})
        cell = lambda kind: "{} / {}".format(*c.get(kind, [0, 0, 0])[:2])  # noqa: E731
        unreviewed = sum(v[2] for v in c.values())
        rows.append(f"| {name} | {cell('safe fix')} | {cell('unsafe fix')} | {cell('report')} | {unreviewed} |")
    return "\n".join(rows)


def save(data: dict, entries: list[Entry]) -> None:
    lines = ",\n".join("    " + json.dumps(asdict(e), ensure_ascii=False) for e in entries)
    VERDICTS.write_text(
        "{\n"
        f'  "about": {json.dumps(data["about"])},\n'
        f'  "repositories": [\n' + ",\n".join("    " + json.dumps(r) for r in data["repositories"]) + "\n  ],\n"
        f'  "findings": [\n{lines}\n  ]\n'
        "}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=os.environ.get("PHIML_REWRITE_CORPUS"), help="the folder of the repositories")
    parser.add_argument("--accept", action="store_true", help="rewrite the verdicts file from this run")
    args = parser.parse_args(argv)
    if not args.corpus:
        parser.error("--corpus DIR (or $PHIML_REWRITE_CORPUS) is required")
    data, reviewed = load()
    found = merge(run(Path(args.corpus), data["repositories"]), reviewed)
    if args.accept:
        save(data, found)
    print(table(found, data["repositories"]))
    kept = {(e.anchor, e.outcome) for e in found}
    gone = [e for e in reviewed if (e.anchor, e.outcome) not in kept]
    new = [e for e in found if e.verdict == UNREVIEWED]
    for e in gone:
        print(f"gone: {e.repo}/{e.file}:{e.line} {e.code} ({e.kind}) {e.message}")
    for e in new:
        print(f"unreviewed: {e.repo}/{e.file}:{e.line} {e.code} ({e.kind}) {e.message}")
    return 1 if (gone or new) and not args.accept else 0


if __name__ == "__main__":
    sys.exit(main())
