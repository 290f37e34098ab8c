"""Golden projects: several modules analysed together through the project index (rewriter/project).

`golden/projects/<case>/` holds the modules; `main.py` states the case in a `GOLDEN = {...}` literal, as
single-file cases do, with findings named `path:CODE:line` (paths relative to the case folder), and
holds the entry function. `<module>.expected.py` is a module's rewrite (absent: it must not change).
Each case is checked for its exact output and idempotence through the CLI's own run (project root =
the case folder), and executed, original and rewritten, on each backend it names: the folder goes on
`sys.path`, so `main.py` imports its neighbours, and the rewrite runs from a copy with the expected
modules in place.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rewriter import runner
from rewriter.config import Config
from rewriter.findings import format_text
from rewriter.verify.run import Run
from tests.harness.golden_cases import project_config, read_spec
from tests.harness.golden_batches import Batcher, Key, Request, grouped, shared_folder
from tests.harness.golden_checks import check_runs

ROOT = Path(__file__).resolve().parent.parent
PROJECTS = ROOT / "golden" / "projects"


@dataclass(frozen=True)
class Project:
    name: str
    folder: Path
    spec: dict = field(hash=False)

    @property
    def id(self) -> str:
        return f"projects/{self.name}"

    @property
    def framework(self) -> str:
        return self.spec.get("framework", "phiml")

    @property
    def backends(self) -> tuple[str, ...]:
        return tuple(self.spec.get("backends", ()))

    def modules(self) -> list[Path]:
        return sorted(p for p in self.folder.rglob("*.py") if not p.name.endswith(".expected.py"))

    def other_files(self) -> list[Path]:
        """What the project holds besides its modules (requirements.txt, pyproject.toml, phi/VERSION): part of
        its world, copied beside the rewrite."""
        return sorted(p for p in self.folder.rglob("*") if p.is_file() and p.suffix not in (".py", ".snap"))

    def expected(self, module: Path) -> bytes:
        rewritten = module.with_name(module.stem + ".expected.py")
        return (rewritten if rewritten.exists() else module).read_bytes()

    def rewritten_copy(self, directory: Path) -> Path:
        """The project as the rewrite leaves it, in a folder of its own."""
        target = directory / self.name
        if not target.exists():
            for module in self.modules():
                out = target / module.relative_to(self.folder)
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(self.expected(module))
            for other in self.other_files():
                out = target / other.relative_to(self.folder)
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(other.read_bytes())
        return target


def _discover() -> list[Project]:
    return [Project(main.parent.name, main.parent, read_spec(main.read_text())) for main in sorted(PROJECTS.glob("*/main.py"))]


CASES = _discover()
_EXPECTED = ("*.expected.py",)  # the rewrites beside the modules are not part of the project
RUNNABLE = [(case, backend) for case in CASES for backend in case.backends]


def _config(folder: Path, spec: dict, **changes) -> Config:
    return project_config(folder, spec, **changes)


def _run(folder: Path, spec: dict) -> runner.Report:
    return runner.run([str(folder)], _config(folder, spec), write=False, jobs=1)


def _relative(case_folder: Path, path: str) -> str:
    return Path(path).resolve().relative_to(case_folder.resolve()).as_posix()


def test_the_golden_projects_cover_what_crosses_modules():
    names = {c.name for c in CASES}
    assert {"helper_in_other_module", "flag_literals_elsewhere", "factory_in_other_module", "reexported_helper",
            "rebound_name", "reexported_math_package"} <= names
    for case in CASES:
        assert len(case.modules()) >= 2, f"{case.id}: a project has several modules"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_rewrite(case: Project):
    report = _run(case.folder, case.spec)
    assert not report.errors, [(r.path, r.error) for r in report.errors]
    produced = {_relative(case.folder, r.path): r.new_source for r in report.results}
    for module in case.modules():
        name = module.relative_to(case.folder).as_posix()
        out = produced.get(name) or module.read_bytes()
        assert out.decode() == case.expected(module).decode(), f"{case.id}: {name}"
    found = sorted(f"{_relative(case.folder, r.path)}:{f.code}:{f.span.line}" for r in report.results for f in r.findings)
    assert found == sorted(case.spec["findings"]), [f.message for r in report.results for f in r.findings]
    messages = {f"{_relative(case.folder, r.path)}:{f.code}:{f.span.line}": format_text(f) for r in report.results for f in r.findings}
    for where, text in case.spec.get("messages", {}).items():
        assert text in messages.get(where, ""), f"{where}: no {text!r} in {messages.get(where)!r}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_idempotent(case: Project, tmp_path: Path):
    folder = case.rewritten_copy(tmp_path)
    report = _run(folder, case.spec)
    assert not report.errors
    assert not [r.path for r in report.results if r.changed], "a second run changed the rewritten project"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_each_module_alone_misses_what_the_project_shows(case: Project):
    """The facts come from the other modules: with the index off, the cross-module findings are gone, or
    (a case whose `GOLDEN` says `"alone_also"`) findings the other modules disprove are back."""
    config = _config(case.folder, case.spec, project=False, project_root=None)
    report = runner.run([str(case.folder)], config, write=False, jobs=1)
    alone = {f"{_relative(case.folder, r.path)}:{f.code}:{f.span.line}" for r in report.results for f in r.findings}
    disproved = set(case.spec.get("alone_also", ()))
    if case.spec.get("world"):  # what the project targets is read from its files, with the index or without
        assert alone == set(case.spec["findings"]), f"{case.id}: alone: {sorted(alone)}"
    elif disproved:  # (`"alone_missing"`: findings of the case that need the other modules, as usual)
        wanted = set(case.spec["findings"]) - set(case.spec.get("alone_missing", ())) | disproved
        assert alone == wanted, f"{case.id}: alone: {sorted(alone)}"
    else:
        assert not set(case.spec["findings"]) <= alone, f"{case.id}: every finding is found without the index"


def _reference_key(case: Project) -> Key:
    return Key("numpy", "phiml", role="reference") if case.framework == "phiml" else Key("jax", "jax", eager=True, role="reference")


def _plan(directory: Path) -> list[Request]:
    out = []
    for case in dict.fromkeys(c for c, _ in RUNNABLE):
        original = str(case.folder / "main.py")
        rewritten = str(case.rewritten_copy(directory) / "main.py")
        out.append(Request(case.id, _reference_key(case), (Run("reference", original, "golden_run", project=True),)))
        for backend in case.backends:
            runs = (Run("original", original, "golden_run", project=True),
                    Run("rewritten", rewritten, "golden_run", project=True),
                    Run("rewritten_eager", rewritten, "golden_run", eager=True, project=True))
            out.append(Request(case.id, Key(backend, case.framework, role="projects"), runs))
    return out


@pytest.fixture(scope="session")
def project_runs(tmp_path_factory) -> Batcher:
    return Batcher(lambda: _plan(tmp_path_factory.mktemp("golden-projects")), shared=shared_folder(tmp_path_factory, "projects"))


@pytest.mark.parametrize("case,backend", [grouped(Key(b, c.framework, role="projects"), c, b) for c, b in RUNNABLE],
                         ids=lambda v: v.id if isinstance(v, Project) else v)
def test_execute(case: Project, backend: str, project_runs: Batcher):
    records = project_runs.records(Key(backend, case.framework, role="projects"), case.id)
    reference = project_runs.records(_reference_key(case), case.id)["reference"]
    check_runs(case.spec, case.framework, backend, reference, records)



@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_pre_filter_keeps_every_cross_module_finding(case: Project):
    """With the project's facts, the `ast` pre-filter lets through what the rules find without it."""
    from dataclasses import replace

    config = _config(case.folder, case.spec)
    files = [str(m) for m in case.modules()]
    index = runner.project_index(config, files)
    settings = runner.settings_for(config, index=index)
    found = {}
    for prefilter in (True, False):
        results = runner.process_files(files, lambda path: replace(settings(path), ast_prefilter=prefilter))
        found[prefilter] = sorted((r.path, f.code, f.span.line) for r in results for f in r.findings)
    assert found[True] == found[False]


def test_a_place_in_another_module_is_a_related_location_in_every_output(monkeypatch, tmp_path):
    """The traced helper's finding points at the jit function in main.py: as a line of the text output,
    a related place in JSON (absolute path) and a SARIF relatedLocation (a URI reference)."""
    import json
    import shutil

    from click.testing import CliRunner

    from rewriter.cli import main

    # A copy outside this repository: the project the CLI indexes is the case's folder, not the
    # repository around it (the nearest pyproject.toml), whose 570 files each run would summarize.
    folder = tmp_path / "helper_in_other_module"
    shutil.copytree(PROJECTS / "helper_in_other_module", folder)
    monkeypatch.chdir(folder)
    runner_ = CliRunner()
    text = runner_.invoke(main, ["--no-cache", "physics.py"]).output
    assert "  main.py:19:1: `step` is traced by `phiml.math.jit_compile` here\n" in text
    (finding,) = json.loads(runner_.invoke(main, ["--no-cache", "--output-format", "json", "physics.py"]).output)["findings"]
    assert {"path": str(folder / "main.py"), "span": {"line": 19, "column": 0, "end_line": 19, "end_column": 0},
            "message": "`step` is traced by `phiml.math.jit_compile` here", "cell": None} in finding["related"]
    sarif = json.loads(runner_.invoke(main, ["--no-cache", "--output-format", "sarif", "physics.py"]).output)
    (related, here) = sarif["runs"][0]["results"][0]["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == (folder / "main.py").as_uri()
    assert related["physicalLocation"]["region"]["startLine"] == 19
    assert here["physicalLocation"]["artifactLocation"]["uri"] == "physics.py"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_a_files_findings_do_not_depend_on_which_other_files_are_in_the_run(case: Project):
    """Same file, same code: same findings, whether the run names the whole project or that file alone. The
    index reads every file under the project root either way; what other files tell a file is evidence the
    finding names (`related`), never an accident of the command line."""
    from rewriter.project.settle import BECAUSE_REWRITTEN

    because = BECAUSE_REWRITTEN.split("`")[0]
    whole = _run(case.folder, case.spec)
    # (A finding that only this run's rewrite of another file brings says so: alone, that file is not rewritten.)
    by_file = {_relative(case.folder, r.path): sorted(format_text(f) for f in r.findings
                                                      if not any(x.message.startswith(because) for x in f.related))
               for r in whole.results}
    config = _config(case.folder, case.spec)
    for module in case.modules():
        name = module.relative_to(case.folder).as_posix()
        alone = runner.run([str(module)], config, write=False, jobs=1)
        found = sorted(format_text(f) for r in alone.results for f in r.findings)
        assert found == by_file.get(name, []), f"{case.id}: {name} run alone"


def test_a_file_processed_again_with_nothing_to_find_is_still_counted_as_skipped():
    """settle's second pass of a file whose facts another file's rewrite changed: where the pre-filter
    skips it again and nothing was rewritten in it, it stays skipped, so `--diff` and `--in-place` count
    the files the pre-filter skipped as `--check` does (one file of the domain corpus, jax_md's
    energy.py, was counted apart)."""
    from rewriter.findings import FileResult
    from rewriter.project.settle import _again

    first = FileResult(path="a.py", old_source=b"x = 1\n", skipped=True)
    again = _again(first, lambda path, text: FileResult(path=path, old_source=text, skipped=True), [])
    assert again.skipped and not again.findings
    rewritten = FileResult(path="a.py", old_source=b"x = 1\n", new_source=b"x = 2\n")
    assert not _again(rewritten, lambda path, text: FileResult(path=path, old_source=text, skipped=True), []).skipped
