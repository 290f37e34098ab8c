"""What a project targets (rewriter/project/targets.py, declarations.py, world.py): each kind of
evidence, its order, and what a specifier proves."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from rewriter.project import declarations
from rewriter.project.targets import Setting, TargetError, TargetReader, Targets, Target, interpreter_targets
from rewriter.project.world import WorldReader
from tests.harness.projects import write_files


def _targets(root: Path, file: str = "main.py", **setting) -> Targets:
    return TargetReader(str(root), Setting(**setting), environ={}).for_file(str(root / file))


def test_requirements_pyproject_setup_setup_cfg_and_conda_are_read(tmp_path):
    write_files(tmp_path, {
        "requirements.txt": "numpy\n-r more.txt\nphiflow==2.1.4  # the paper's\n",
        "more.txt": "jax>=0.4.13,<0.5\n",
        "a/pyproject.toml": '[project]\ndependencies = ["phiml>=1.10"]\n[tool.poetry.dependencies]\nequinox = "^0.10"\n',
        "b/setup.py": "REQ = ['diffrax==0.4.1']\nfrom setuptools import setup\nsetup(install_requires=REQ, extras_require={'x': ['jax==0.3.25']})\n",
        "c/setup.cfg": "[options]\ninstall_requires =\n    torch>=1.12\n",
        "d/environment.yml": "name: e\ndependencies:\n  - tensorflow=2.9\n  - pip:\n    - phiflow==2.2.2\n",
    })
    top = _targets(tmp_path)
    assert top.of("phi").spec == "==2.1.4" and top.of("phi").evidence == "requirements.txt:3 pins phiflow==2.1.4"
    assert top.of("jax").evidence.startswith("more.txt:1 requires jax")
    a = _targets(tmp_path, "a/x.py")
    assert a.of("phiml").spec == ">=1.10" and a.of("equinox").spec == ">=0.10,<0.11"
    assert a.of("phi").spec == "==2.1.4"  # the nearest declaration of each library, from the file up
    b = _targets(tmp_path, "b/x.py")
    assert b.of("diffrax").spec == "==0.4.1" and b.of("jax").spec == "==0.3.25"
    assert _targets(tmp_path, "c/x.py").of("torch").spec == ">=1.12"
    d = _targets(tmp_path, "d/x.py")
    assert d.of("tensorflow").spec == "==2.9.*" and d.of("phi").spec == "==2.2.2"


def test_what_a_specifier_proves():
    def at_least(spec: str, version: str) -> str:
        return Targets((Target("jax", spec, "the pin"),)).at_least("jax", version)

    assert at_least("==0.4.30", "0.4.25") == ""
    assert at_least(">=0.4.25", "0.4.25") == ""
    assert at_least("~=0.4.26", "0.4.25") == ""
    assert at_least("==0.4.6", "0.4.25") == "the pin"
    assert at_least(">=0.4.13", "0.4.25") == "the pin"  # 0.4.13 is admitted
    assert at_least("<0.5", "0.4.25") == "the pin"  # no lower bound, an upper one: old releases admitted
    assert at_least("!=0.4.1", "0.4.25") == ""  # any version: what an install picks today
    assert Targets().at_least("jax", "9.0") == ""  # nothing known: the installed facts are assumed


def test_a_copy_of_a_library_in_the_project_is_its_own_code(tmp_path):
    write_files(tmp_path, {"pyproject.toml": "", "phi/__init__.py": "", "vendor/jax/__init__.py": "",
                      "phi/VERSION": "1.5.1\n", "scripts/run.py": ""})
    found = _targets(tmp_path, "scripts/run.py")
    assert found.of("phi").local and found.of("phi").spec == "==1.5.1"
    assert found.of("jax").local and found.of("jax").spec == "" and found.at_least("jax", "0.1") != ""
    assert found.own_copies() == {"phi", "jax"}  # neither is the installed release


def test_a_copy_beside_a_script_counts_where_there_is_no_project(tmp_path):
    write_files(tmp_path, {"work/phi/__init__.py": "", "work/sim.py": "", "other/deep/er/phi/__init__.py": ""})
    assert _targets(tmp_path / "work", "sim.py").of("phi").local
    assert _targets(tmp_path, "main.py").of("phi") is None  # not a marked project root: not searched below


def test_a_package_named_like_a_library_inside_a_package_is_no_copy(tmp_path):
    """PhiFlow's layout (two-way-coupled-control vendors it): `phi/jax/` is `phi.jax`, PhiFlow's jax backend.
    A module of `phi.field` is imported from above `phi/`, never run from inside it, so its `import jax`
    is the installed jax; only a script in `phi/` itself (its folder first on `sys.path`) would see it."""
    write_files(tmp_path, {"setup.py": "", "phi/__init__.py": "", "phi/VERSION": "2.0.0rc1\n", "phi/jax/__init__.py": "",
                           "phi/torch/__init__.py": "", "phi/field/__init__.py": "", "phi/field/_math.py": "",
                           "phi/run.py": ""})
    module = _targets(tmp_path, "phi/field/_math.py")
    assert module.own_copies() == {"phi"} and module.of("jax") is None and module.of("torch") is None
    assert _targets(tmp_path, "phi/run.py").own_copies() == {"phi", "jax", "torch"}


def test_one_reader_answers_each_folder_as_a_fresh_one_does(tmp_path):
    """A reader remembers what each folder holds for the folders below it; a folder that is a package
    counts for its own modules only, whichever folder was asked first."""
    write_files(tmp_path, {"setup.py": "", "lab/jax/__init__.py": "", "lab/sim/__init__.py": "", "lab/sim/run.py": "",
                           "lab/sim/torch/__init__.py": "", "lab/sim/deep/step.py": "", "lab/tool.py": ""})
    files = ["lab/sim/deep/step.py", "lab/sim/run.py", "lab/tool.py"]
    fresh = {f: TargetReader(str(tmp_path)).for_file(str(tmp_path / f)).own_copies() for f in files}
    assert fresh == {"lab/sim/deep/step.py": {"jax"}, "lab/sim/run.py": {"jax", "torch"}, "lab/tool.py": {"jax"}}
    for order in (files, files[::-1]):
        reader = TargetReader(str(tmp_path))
        assert {f: reader.for_file(str(tmp_path / f)).own_copies() for f in order} == fresh


def test_a_vendored_phiflow_reads_the_installed_jax_in_its_backend(tmp_path):
    """A PhiFlow copy's jax backend (`phi/jax/`) is no copy of jax: `jax.jit` in a module of `phi.field`
    is the installed jax's (before, it was the project's own code, and nothing was reported there)."""
    from rewriter import runner
    from rewriter.config import Config

    uses = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
    write_files(tmp_path, {"setup.py": "", "phi/__init__.py": "", "phi/VERSION": "2.0.0rc1\n", "phi/jax/__init__.py": "",
                           "phi/field/__init__.py": "", "phi/field/_math.py": uses})
    report = runner.run([str(tmp_path)], Config(root=str(tmp_path)), jobs=1, rewrite=False)
    assert [f.code for r in report.results for f in r.findings] == ["PML201"]


def test_a_virtual_environment_inside_the_project_holds_installed_packages(tmp_path):
    write_files(tmp_path, {"pyproject.toml": "", "venv/pyvenv.cfg": "", "venv/jax/__init__.py": ""})
    assert _targets(tmp_path).of("jax") is None


def test_a_notebooks_own_install_line_wins_over_the_folders(tmp_path):
    cells = [{"cell_type": "markdown", "source": "pip install phiflow==1.0"},
             {"cell_type": "code", "source": ["%pip install -q phiflow==3.4 tqdm\n", "from phi import math"]}]
    (tmp_path / "book.ipynb").write_text(json.dumps({"cells": cells}))
    (tmp_path / "requirements.txt").write_text("phiflow==2.1.4\n")
    found = _targets(tmp_path, "book.ipynb")
    assert found.of("phi").spec == "==3.4" and found.of("phi").evidence == "cell 2 of book.ipynb installs phiflow==3.4"


def test_the_explicit_setting_wins_and_names_itself(tmp_path):
    write_files(tmp_path, {"requirements.txt": "phiflow==2.1.4\n", "phi/__init__.py": "", "pyproject.toml": ""})
    found = _targets(tmp_path, versions=(("phiflow", "3.4"),), where="pyproject.toml target-versions")
    assert found.of("phi").spec == "==3.4" and found.of("phi").evidence == "pyproject.toml target-versions phiflow=3.4"


def test_the_activated_environment_is_the_weakest_evidence(tmp_path):
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages" / "jax-0.4.20.dist-info"
    site.mkdir(parents=True)
    (site / "METADATA").write_text("Metadata-Version: 2.1\nName: jax\nVersion: 0.4.20\n")
    project = write_files(tmp_path / "p", {"main.py": ""})
    reader = TargetReader(str(project), environ={"VIRTUAL_ENV": str(tmp_path / "env")})
    assert reader.for_file(str(project / "main.py")).of("jax").evidence == "the activated environment has jax 0.4.20"
    (project / "requirements.txt").write_text("jax==0.4.30\n")
    reader = TargetReader(str(project), environ={"VIRTUAL_ENV": str(tmp_path / "env")})
    assert reader.for_file(str(project / "main.py")).of("jax").spec == "==0.4.30"


def test_the_named_interpreter_is_read_and_one_that_does_not_run_is_an_error(tmp_path):
    found = interpreter_targets(sys.executable)
    assert any(t.root == "jax" for t in found)  # the test environment has jax
    with pytest.raises(TargetError):
        interpreter_targets(str(tmp_path / "no-python"))


def test_pip_lines_and_requirement_forms_that_declare_no_version(tmp_path):
    assert declarations._pip_line("!pip install git+https://github.com/x/y", "w") == []
    assert declarations._pip_line("!python -m pip install 'jax==0.4.1' -U", "w")[0].spec == "==0.4.1"
    assert declarations._pip_line("import pip", "w") == []
    assert declarations._parsed("phiflow @ https://example.com/p.zip", "w") == []
    assert declarations._poetry_spec("^1.2.3") == ">=1.2.3,<2" and declarations._poetry_spec("~2.1") == ">=2.1,<2.2"
    assert declarations._poetry_spec("*") == "" and declarations._poetry_spec("0.4.6") == "==0.4.6"


def test_a_public_function_of_an_installable_package_has_callers_outside_the_run(tmp_path):
    write_files(tmp_path, {"setup.py": "", "pkg/__init__.py": "", "pkg/mod.py": "", "script.py": "", "nb.ipynb": "{}"})
    reader = WorldReader(index=object())  # (with the project index: the callers in the project are read)
    assert "setup.py makes installable" in reader(str(tmp_path / "pkg" / "mod.py"), str(tmp_path)).open_module
    assert reader(str(tmp_path / "script.py"), str(tmp_path)).open_module == ""
    assert reader(str(tmp_path / "nb.ipynb"), str(tmp_path)).open_module == ""
    (tmp_path / "setup.py").unlink()
    assert WorldReader(index=object())(str(tmp_path / "pkg" / "mod.py"), str(tmp_path)).open_module == ""
    assert "without the project index" in WorldReader()(str(tmp_path / "pkg" / "mod.py"), str(tmp_path)).open_module


def test_a_copy_without_a_repository_is_rooted_at_its_requirements(tmp_path):
    """A "Download ZIP" copy has no `.git`: the folders that declare requirements, one inside the next,
    make its root, so a pin above a subproject's own requirements file still holds (one file or all)."""
    from click.testing import CliRunner

    from rewriter.cli import main
    from rewriter.project.roots import project_root

    write_files(tmp_path, {
        "zip/requirements.txt": "jax==0.4.6\n",
        "zip/sim/requirements.txt": "numpy\n",
        "zip/sim/utils/count.py": "import jax\n\n\ndef count(params):\n    return sum(jax.tree_leaves(params))\n",
        "lone/deep/script.py": "",
        "repo/.git/HEAD": "", "repo/setup.py": "", "repo/sub/requirements.txt": "",
    })
    zip_root = str(tmp_path / "zip")
    assert project_root(str(tmp_path / "zip/sim/utils/count.py")) == zip_root
    assert project_root(str(tmp_path / "zip/sim")) == zip_root
    assert project_root(str(tmp_path / "lone/deep/script.py")) == str(tmp_path / "lone/deep")  # nothing marks one
    assert project_root(str(tmp_path / "repo/sub")) == str(tmp_path / "repo")  # a repository wins
    for target in (tmp_path / "zip/sim/utils/count.py", tmp_path / "zip"):
        out = CliRunner().invoke(main, ["--check", "--no-cache", "--no-progress", str(target)]).output
        assert "requirements.txt:1 pins jax==0.4.6" in out and "[*]" not in out, out


def test_root_markers_read_once_per_folder_give_the_same_roots(tmp_path, monkeypatch):
    """A caller asking the root of many folders under the same parents (WorldReader) passes one `markers`
    dict: each folder's markers are stat'ed once, and every root is the one found without it."""
    from rewriter.project import roots

    write_files(tmp_path, {
        "zip/requirements.txt": "", "zip/sim/requirements.txt": "", "zip/sim/utils/a.py": "", "zip/sim/b.py": "",
        "lone/deep/script.py": "", "repo/.git/HEAD": "", "repo/setup.py": "", "repo/sub/requirements.txt": "",
        "repo/sub/deep/c.py": "",
    })
    starts = [str(tmp_path / p) for p in ("zip/sim/utils/a.py", "zip/sim/b.py", "zip/sim", "lone/deep/script.py",
                                           "repo/sub/deep/c.py", "repo/sub", "repo")]
    alone = [roots.project_root(start) for start in starts]
    stats: list[str] = []
    exists = os.path.exists
    monkeypatch.setattr(roots.os.path, "exists", lambda path: stats.append(path) or exists(path))
    markers: dict = {}
    assert [roots.project_root(start, markers) for start in starts] == alone
    assert len(stats) == len(set(stats))  # no marker of any folder looked for twice


def test_packaging_is_imported_only_where_a_requirement_or_version_is_read(tmp_path):
    """A project that declares nothing reads no requirement and compares no version: `packaging`'s
    requirement and specifier parsers (about 20 ms of a warm run's imports) stay unimported; a pin is
    still read where there is one."""
    import subprocess

    probe = ("import sys\nfrom rewriter.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith('packaging.')), file=sys.stderr)\n")
    write_files(tmp_path, {"bare/sim.py": "import jax\n\nf = jax.jit(lambda x: x + 1)\n",
                           "pinned/requirements.txt": "jax==0.4.6\n",
                           "pinned/sim.py": "import jax\n\n\ndef count(params):\n    return sum(jax.tree_leaves(params))\n"})
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    for folder in ("bare", "pinned"):
        run = subprocess.run([sys.executable, "-c", probe, "--check", "--no-cache", "--no-progress", folder],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        imported = json.loads(run.stderr.strip().splitlines()[-1].replace("'", '"'))
        if folder == "bare":
            assert not {"packaging.requirements", "packaging.specifiers"} & set(imported), imported
        else:
            assert "packaging.requirements" in imported and "pins jax==0.4.6" in run.stdout, run.stdout
