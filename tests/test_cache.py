"""The result cache: hits give exactly the results of a fresh run, and every input of a result is in its key."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rewriter import cache as result_cache
from rewriter.cli import main
from rewriter.engine import Settings
from rewriter.file_digests import digest_of
from rewriter.registry import all_codemods, select

from tests.harness.cached_runs import cache_project
from tests.harness.snippets import TRACED_IF



@pytest.fixture
def project(tmp_path, monkeypatch):
    return cache_project(tmp_path, monkeypatch)


def run(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(main, ["--output-format", "json", *args])
    return result.exit_code, json.loads(result.stdout)


def _comparable(report: dict) -> dict:
    report = dict(report)
    report["summary"] = {k: v for k, v in report["summary"].items() if k not in ("cached", "libcst_parsed")}
    return report


def test_a_warm_run_reports_exactly_what_the_cold_run_did(project):
    code, cold = run("pkg")
    assert cold["summary"]["cached"] == 0 and cold["errors"]  # broken.py: an error, cached as one
    code2, warm = run("pkg")
    assert warm["summary"]["cached"] == 3
    assert code2 == code and _comparable(warm) == _comparable(cold)
    assert (project / ".phiml-rewrite-cache" / "results.sqlite").exists()
    assert (project / ".phiml-rewrite-cache" / ".gitignore").read_text().strip().endswith("*")
    assert (project / ".phiml-rewrite-cache" / "CACHEDIR.TAG").exists()


def test_a_changed_file_is_analysed_again_and_only_it(project):
    run("pkg")
    (project / "pkg" / "plain.py").write_text(TRACED_IF.replace("clamp", "halve"))
    _, warm = run("pkg")
    assert warm["summary"]["cached"] == 2
    assert sorted(f["path"] for f in warm["findings"]) == ["pkg/clamp.py", "pkg/plain.py"]


def test_configuration_is_part_of_the_key(project):
    run("pkg")
    (project / "pyproject.toml").write_text('[tool.phiml-rewrite]\nignore = ["PML201"]\n')
    _, warm = run("pkg")
    # The enabled rules are in every key (a rewrite may bring in a rule the original did not
    # trigger), so everything is analysed again: without PML201 now.
    assert warm["summary"]["cached"] == 0 and warm["findings"] == []
    _, again = run("pkg")
    assert again["summary"]["cached"] == 3 and again["findings"] == []
    _, flags = run("pkg", "--select", "PML201")
    assert [f["code"] for f in flags["findings"]] == ["PML201"]


def test_in_place_after_a_cached_check_writes_the_fix_once(project):
    run("pkg")
    code, written = run("--in-place", "pkg")
    assert written["changed_files"] == ["pkg/clamp.py"] and "math.where" in (project / "pkg" / "clamp.py").read_text()
    fixed = (project / "pkg" / "clamp.py").read_bytes()
    _, again = run("--in-place", "pkg")
    assert again["changed_files"] == [] and (project / "pkg" / "clamp.py").read_bytes() == fixed


def test_no_cache_and_cache_dir(project, tmp_path_factory):
    run("--no-cache", "pkg")
    assert not (project / ".phiml-rewrite-cache").exists()
    elsewhere = tmp_path_factory.mktemp("cache")
    run("--cache-dir", str(elsewhere), "pkg")
    _, warm = run("--cache-dir", str(elsewhere), "pkg")
    assert warm["summary"]["cached"] == 3 and not (project / ".phiml-rewrite-cache").exists()


def test_a_corrupt_cache_is_a_warning_not_an_error(project):
    run("pkg")
    (project / ".phiml-rewrite-cache" / "results.sqlite").write_bytes(b"this is not sqlite" * 100)
    for suffix in ("-wal", "-shm"):
        (project / ".phiml-rewrite-cache" / f"results.sqlite{suffix}").unlink(missing_ok=True)
    result = CliRunner().invoke(main, ["pkg"])
    assert "warning: cache not used" in result.stderr
    assert "PML201" in result.stdout and result.exit_code == 2  # 2: broken.py does not parse


def test_cache_directory_defaults(project, monkeypatch, tmp_path_factory):
    assert result_cache.default_directory(str(project)) == project / ".phiml-rewrite-cache"
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.setattr(result_cache.os, "access", lambda path, mode: False)  # a read-only checkout
    user = result_cache.default_directory(str(project))
    assert str(user).startswith(str(home / "phiml-rewrite"))
    monkeypatch.setenv("PHIML_REWRITE_CACHE_DIR", str(home / "explicit"))
    assert result_cache.default_directory(str(project)) == home / "explicit"


def test_keys_cover_source_codes_and_modes():
    settings = Settings(all_codemods())
    key = result_cache.settings_key(settings)
    assert result_cache.file_key(digest_of(b"x = 1\n"), key) != result_cache.file_key(digest_of(b"x = 2\n"), key)
    variants = [
        Settings(select(["PML2"])),
        Settings(all_codemods(), unsafe_fixes=True),
        Settings(all_codemods(), apply_fixes=False),
        Settings(all_codemods(), original_positions=True),
    ]
    assert len({key, *(result_cache.settings_key(v) for v in variants)}) == 5
    # Results that depend on more than the file are never cached.
    assert result_cache.settings_key(Settings(all_codemods(), runtime_evidence=(("/x.py", 1, "t"),))) is None
    assert result_cache.settings_key(Settings(all_codemods(), unsafe_units=frozenset())) is None


def test_the_tool_fingerprint_covers_every_rule_source(tmp_path):
    """An edited rule must never serve an old verdict: every source file of the tool is hashed."""
    import shutil

    root = Path(result_cache.__file__).resolve().parent.parent
    for package in ("rewriter", "codemods"):
        shutil.copytree(root / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    assert result_cache.code_fingerprint(tmp_path) == result_cache.tool_fingerprint()
    rule = sorted((tmp_path / "codemods").glob("*.py"))[-1]
    rule.write_bytes(rule.read_bytes() + b"\n# edited\n")
    assert result_cache.code_fingerprint(tmp_path) != result_cache.tool_fingerprint()


def test_a_hit_is_marked_in_use_only_once_its_mark_is_old_and_unused_entries_are_pruned(tmp_path, monkeypatch):
    """Pruning drops what no run used for KEEP_UNUSED_DAYS; a hit renews its time of use, but only
    once that is a day old: a warm run over an unchanged project then writes nothing to the store."""
    import sqlite3

    import types

    now = [1_000_000_000.0]
    monkeypatch.setattr(result_cache, "time", types.SimpleNamespace(time=lambda: now[0]))  # (the store's clock only)
    store = result_cache.ResultCache.at(tmp_path / "cache")
    store.put_many({"fresh": "1", "old": "2", "dropped": "3"})
    db = sqlite3.connect(tmp_path / "cache" / "results.sqlite")
    day = 86400
    db.execute("UPDATE results SET used = ? WHERE key = 'old'", (now[0] - 2 * day,))
    db.execute("UPDATE results SET used = ? WHERE key = 'dropped'", (now[0] - (result_cache.KEEP_UNUSED_DAYS + 1) * day,))
    db.commit()
    used = lambda: dict(db.execute("SELECT key, used FROM results"))  # noqa: E731
    before = used()
    now[0] += 60
    assert store.get_many(["fresh", "old"]) == {"fresh": "1", "old": "2"}
    after = used()
    assert after["fresh"] == before["fresh"] and after["old"] == now[0]
    assert store.get_many(["fresh", "old"]) == {"fresh": "1", "old": "2"} and used() == after  # nothing written
    store.put_many({"new": "4"})
    assert set(used()) == {"fresh", "old", "new"}
    store.close()
