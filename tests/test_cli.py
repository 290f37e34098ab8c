"""The command line, end to end through click's test runner."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from rewriter.cli import main


@pytest.fixture
def project(tmp_path, monkeypatch, fake_rules):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def cli(*args: str, input: bytes | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def test_clean_tree_exits_0(project):
    (project / "a.py").write_text("x = 1\n")
    result = cli(".")
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "Scanned 1 file" in result.stderr


def test_default_prints_findings_and_diff_and_writes_nothing(project):
    (project / "a.py").write_text("x = foo(1)\nqux()\n")
    result = cli("a.py")
    assert result.exit_code == 1
    assert "a.py:1:5: PML901 [*] use bar() instead of foo()\n" in result.stdout
    assert "a.py:2:1: PML903 qux() is slow\n" in result.stdout
    assert "--- a/a.py\n+++ b/a.py\n" in result.stdout and "-x = foo(1)\n+x = bar(1)\n" in result.stdout
    assert (project / "a.py").read_text() == "x = foo(1)\nqux()\n"


def test_no_paths_means_the_current_directory(project):
    (project / "a.py").write_text("foo()\n")
    assert "a.py:1:1: PML901" in cli().stdout


def test_diff_prints_only_the_diff_with_line_endings(project):
    (project / "a.py").write_bytes(b"foo()\r\nqux()\r\n")
    result = cli("--diff", ".")
    assert result.exit_code == 1
    # Header lines end in \n; file lines keep their own \r\n.
    assert result.stdout_bytes == b"--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-foo()\r\n+bar()\r\n qux()\r\n"


def test_check_prints_findings_only(project):
    (project / "a.py").write_text("foo()\n")
    result = cli("--check", ".")
    assert result.exit_code == 1
    assert result.stdout == "a.py:1:1: PML901 [*] use bar() instead of foo()\n"
    (project / "a.py").write_text("bar()\n")
    assert cli("--check", ".").exit_code == 0


def test_in_place_writes_and_exits_1_only_if_findings_remain(project):
    (project / "a.py").write_text("foo()\n")
    result = cli("--in-place", ".")
    assert result.exit_code == 0 and result.stdout == ""
    assert (project / "a.py").read_text() == "bar()\n"
    assert "1 fixed in 1 file, 0 remaining" in result.stderr
    (project / "b.py").write_text("foo()\nqux()\n")
    result = cli("--in-place", ".")
    assert result.exit_code == 1
    assert result.stdout == "b.py:2:1: PML903 qux() is slow\n"  # the fixed one is not repeated
    assert (project / "b.py").read_text() == "bar()\nqux()\n"


def test_modes_are_mutually_exclusive(project):
    result = cli("--diff", "--check", ".")
    assert result.exit_code == 2 and "mutually exclusive" in result.stderr


def test_select_and_ignore(project):
    (project / "a.py").write_text("foo()\nbaz()\nqux()\n")
    codes = lambda r: [line.split()[1] for line in r.stdout.splitlines()]  # noqa: E731
    assert codes(cli("--check", "--select", "PML903", ".")) == ["PML903"]
    assert codes(cli("--check", "--select", "foo-to-bar,no-qux", ".")) == ["PML901", "PML903"]
    assert codes(cli("--check", "--select", "PML9", "--ignore", "PML901", "--ignore", "baz-to-bar", ".")) == ["PML903"]


def test_unknown_rule_is_a_usage_error(project):
    (project / "a.py").write_text("foo()\n")
    result = cli("--select", "PML777", ".")
    assert result.exit_code == 2
    assert "unknown rule 'PML777'" in result.stderr and "--select" in result.stderr


def test_unsafe_fixes(project):
    (project / "a.py").write_text("baz()\n")
    assert cli("--in-place", ".").exit_code == 1
    assert cli("--in-place", "--unsafe-fixes", ".").exit_code == 0
    assert (project / "a.py").read_text() == "bar()\n"


def test_files_that_cannot_be_processed_exit_2_and_others_are_processed(project):
    (project / "bad.py").write_text("def foo(:\n")
    (project / "ok.py").write_text("foo()\n")
    result = cli("--in-place", ".", "missing.py")
    assert result.exit_code == 2
    assert "missing.py: error: no such file or directory\n" in result.stderr
    assert "bad.py: error: syntax error" in result.stderr
    assert (project / "ok.py").read_text() == "bar()\n"


def test_json_output(project):
    (project / "a.py").write_text("foo()\nqux()\n")
    result = cli("--output-format", "json", ".")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert [f["code"] for f in doc["findings"]] == ["PML901", "PML903"]
    assert doc["changed_files"] == ["a.py"] and doc["summary"]["findings"] == 2


def test_github_output(project):
    (project / "a.py").write_text("qux()\n")
    result = cli("--output-format", "github", ".")
    assert result.stdout == "::warning title=PML903 (no-qux),file=a.py,line=1,col=1,endLine=1,endColumn=6::qux() is slow\n"


def test_sarif_output(project):
    (project / "a.py").write_text("foo()\n")
    doc = json.loads(cli("--output-format", "sarif", ".").stdout)
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["PML901", "PML902", "PML903"]
    assert run["results"][0]["ruleId"] == "PML901"
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "a.py"


def test_stdin_filename_writes_the_fixed_source_to_stdout(project):
    result = cli("--stdin-filename", "pkg/a.py", input=b"foo()\r\nqux()\r\n")
    assert result.stdout_bytes == b"bar()\r\nqux()\r\n"
    assert result.stderr == "pkg/a.py:2:1: PML903 qux() is slow\n"
    assert result.exit_code == 1
    clean = cli("--stdin-filename", "a.py", input=b"foo()\n")
    assert clean.exit_code == 0 and clean.stdout_bytes == b"bar()\n" and clean.stderr == ""


def test_stdin_filename_check_and_diff_modes(project):
    check = cli("--check", "--stdin-filename", "a.py", input=b"foo()\n")
    assert check.exit_code == 1 and check.stdout == "" and "PML901" in check.stderr
    diff = cli("--diff", "--stdin-filename", "a.py", input=b"foo()\n")
    assert diff.exit_code == 1 and "-foo()\n+bar()\n" in diff.stdout


def test_stdin_filename_with_a_syntax_error_echoes_the_input(project):
    result = cli("--stdin-filename", "a.py", input=b"def foo(:\n")
    assert result.exit_code == 2
    assert result.stdout_bytes == b"def foo(:\n"
    assert result.stderr.startswith("a.py: error: syntax error")


def test_stdin_filename_resolves_config_from_the_name(project):
    (project / "sub").mkdir()
    (project / "sub" / "pyproject.toml").write_text(
        '[tool.phiml-rewrite.per-file-ignores]\n"gen/*.py" = ["PML901"]\n'
    )
    result = cli("--stdin-filename", "sub/gen/a.py", input=b"foo()\n")
    assert result.exit_code == 0 and result.stdout_bytes == b"foo()\n"
    assert cli("--stdin-filename", "gen/a.py", input=b"foo()\n").stdout_bytes == b"bar()\n"


def test_stdin_filename_with_paths_is_a_usage_error(project):
    assert cli("--stdin-filename", "a.py", "b.py", input=b"").exit_code == 2


def test_bad_config_exits_2_naming_the_key(project):
    (project / "pyproject.toml").write_text('[tool.phiml-rewrite]\nselct = ["PML9"]\n')
    (project / "a.py").write_text("foo()\n")
    result = cli(".")
    assert result.exit_code == 2
    assert "unknown key 'selct'" in result.stderr and "pyproject.toml" in result.stderr


def test_config_select_and_flag_override(project):
    (project / "pyproject.toml").write_text('[tool.phiml-rewrite]\nselect = ["no-qux"]\n')
    (project / "a.py").write_text("foo()\nqux()\n")
    assert [line.split()[1] for line in cli("--check", ".").stdout.splitlines()] == ["PML903"]
    assert [line.split()[1] for line in cli("--check", "--select", "PML901", ".").stdout.splitlines()] == ["PML901"]


def test_quiet_prints_no_summary(project):
    (project / "a.py").write_text("foo()\n")
    result = cli("--check", "-q", ".")
    assert result.stderr == "" and "PML901" in result.stdout


def test_rules_table_and_json(project):
    result = cli("rules")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert any(line.split()[:3] == ["PML901", "foo-to-bar", "safe"] for line in lines)
    assert any("qux() is slow" in line and "PML903" in line for line in lines)
    rows = json.loads(cli("rules", "--output-format", "json").stdout)
    assert rows[1] == {"code": "PML902", "name": "baz-to-bar", "safety": "unsafe", "severity": "warning", "summary": "call bar() instead of baz()"}


def test_explain(project):
    by_code = cli("explain", "PML901")
    assert by_code.exit_code == 0
    assert by_code.stdout.startswith("# PML901 foo-to-bar\n") and "`foo()` is spelled `bar()`" in by_code.stdout
    assert cli("explain", "foo-to-bar").stdout == by_code.stdout
    unknown = cli("explain", "PML777")
    assert unknown.exit_code == 2 and "unknown rule" in unknown.stderr


def test_paths_named_like_subcommands_go_through_check(project):
    (project / "rules").mkdir()
    (project / "rules" / "a.py").write_text("foo()\n")
    result = cli("check", "rules")
    assert result.exit_code == 1 and "rules/a.py:1:1: PML901" in result.stdout
    assert "rules/a.py" in cli("--check", "rules").stdout  # an option first: the default command
    assert "PML901" in cli("rules").stdout and "rules/a.py" not in cli("rules").stdout


def test_version_and_help(project):
    assert cli("--version").stdout.startswith("phiml-rewrite, version")
    helptext = cli("--help").stdout
    assert "rules" in helptext and "explain" in helptext and "check" in helptext
    assert "--in-place" in cli("check", "--help").stdout


def test_start_up_does_not_load_what_only_a_fix_needs():
    """libcst.codemod (and the matchers it loads) cost a fifth of a warm run: only a fix adding an
    import loads it (issue 21, lazy start-up)."""
    import subprocess
    import sys

    code = "import sys, rewriter.cli, rewriter.runner; print('libcst.codemod' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_run_served_from_the_cache_and_the_rule_list_load_neither_libcst_nor_a_rule(tmp_path):
    """A warm run (every result from the cache) reads, hashes and looks up: it imports no rule, no libcst
    and no engine, and nothing that starts or writes through processes (multiprocessing, concurrent.futures,
    tempfile); nor does `phiml-rewrite rules` (issue 21, lazy start-up)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("phiml_diffusion.py", "jax_training.py"):
        for copy in range(5):  # enough files for the run's workers (runner.POOL_MIN_FILES), which a warm run never starts
            (tree / f"{copy}_{name}").write_bytes((root / "examples" / name).read_bytes())
    probe = ("import atexit, sys, runpy\n"
             "atexit.register(lambda: print('LOADED', sorted(m for m in sys.modules if m in ('libcst', 'multiprocessing', "
             "'concurrent.futures', 'tempfile') or m.startswith(('codemods', 'rewriter.engine', 'rewriter.codemod'))), "
             "file=sys.stderr))\n"
             "sys.argv = ['phiml-rewrite', *sys.argv[1:]]\n"
             "runpy.run_module('rewriter.cli', run_name='__main__')\n")

    env = {**os.environ, "PYTHONPATH": str(root)}  # this checkout's code, whatever the venv points at

    def loaded(*args: str) -> str:
        proc = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=tmp_path, env=env)
        return next(line for line in proc.stderr.splitlines() if line.startswith("LOADED"))

    check = ("--check", "--no-progress", "--jobs", "2", "--cache-dir", str(tmp_path / "cache"), str(tree))
    assert "multiprocessing" in loaded(*check)  # the cold run analyses, in its workers
    assert loaded(*check) == "LOADED []"
    assert loaded("rules") == "LOADED []"
