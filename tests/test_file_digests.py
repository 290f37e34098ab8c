"""A file's digest is taken from its stat only where the stat proves the bytes are the ones hashed."""
from __future__ import annotations

import json
import os
import time

import pytest
from click.testing import CliRunner

from rewriter.cache import ResultCache
from rewriter.cli import main
from rewriter.file_digests import FileDigests, digest_of

from tests.harness.cached_runs import cache_project, check_json

def _digests(tmp_path) -> FileDigests:
    return FileDigests(ResultCache.at(tmp_path / "cache"))


def _recorded(tmp_path, path) -> str | None:
    digests = _digests(tmp_path)
    digests.known([str(path)])
    return digests.digest(str(path))


def test_a_settled_file_is_known_by_its_stat_in_the_next_run(tmp_path, settled):
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    assert _recorded(tmp_path, path) is None
    first = _digests(tmp_path)
    first.known([str(path)])
    assert first.read(str(path)) == (b"x = 1\n", digest_of(b"x = 1\n"))
    first.save()
    assert _recorded(tmp_path, path) == digest_of(b"x = 1\n")


def test_a_file_rewritten_with_its_size_and_mtime_kept_is_read_again(tmp_path, settled):
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    digests = _digests(tmp_path)
    digests.read(str(path))
    digests.save()
    before = os.stat(path)
    time.sleep(0.01)  # (a later ctime on every file system this runs on)
    path.write_bytes(b"x = 2\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # `cp -p`, `rsync -t`, `touch -d`: the old mtime
    assert os.stat(path).st_size == before.st_size and os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert _recorded(tmp_path, path) is None  # its ctime moved


def test_a_file_changed_just_before_it_was_read_is_not_recorded(tmp_path):
    """Within a tick of a coarse file system clock a second write keeps the stat: a file changed
    less than SETTLED_NS before it was stat'ed is read again by the next run (the real clock here)."""
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    digests = _digests(tmp_path)
    digests.read(str(path))
    digests.save()
    assert _recorded(tmp_path, path) is None


@pytest.fixture
def project(tmp_path, monkeypatch):
    return cache_project(tmp_path, monkeypatch)


def test_a_warm_check_reads_only_the_files_whose_fixes_it_reports(project, settled, monkeypatch):
    cold = check_json("pkg")
    opened: list[str] = []
    read = FileDigests.read
    monkeypatch.setattr(FileDigests, "read", lambda self, path: (opened.append(os.path.basename(path)), read(self, path))[1])
    warm = check_json("pkg")
    assert warm["summary"]["cached"] == 3 and opened == ["clamp.py"]  # (its fix: jupytext pairs read the bytes)
    assert {k: v for k, v in warm["summary"].items() if k != "cached"} == \
        {k: v for k, v in cold["summary"].items() if k != "cached"}
    assert warm["findings"] == cold["findings"] and warm["errors"] == cold["errors"]


def test_a_file_changed_behind_its_mtime_gets_a_fresh_result(project, settled):
    check_json("pkg")
    plain = project / "pkg" / "plain.py"
    before = os.stat(plain)
    time.sleep(0.01)
    plain.write_text("x = 2\n")  # (the same size)
    os.utime(plain, ns=(before.st_atime_ns, before.st_mtime_ns))
    warm = check_json("pkg")
    assert warm["summary"]["cached"] == 2  # plain.py is analysed again
    cold = check_json("--no-cache", "pkg")
    assert warm["findings"] == cold["findings"] and warm["errors"] == cold["errors"]


def test_a_summary_no_longer_stored_is_made_again_from_the_file(project, settled):
    import sqlite3

    cold = check_json("pkg")
    with sqlite3.connect(project / ".phiml-rewrite-cache" / "results.sqlite") as db:
        db.execute("DELETE FROM results")  # (summaries, facts and results: the digests stay)
    warm = check_json("pkg")
    assert warm["summary"]["cached"] == 0 and warm["findings"] == cold["findings"]


def test_diff_and_in_place_after_a_warm_check_show_and_write_the_fix(project, settled):
    check_json("pkg")
    check_json("pkg")
    shown = CliRunner().invoke(main, ["--diff", "--no-cache", "pkg"]).stdout
    assert "math.where" in shown and CliRunner().invoke(main, ["--diff", "pkg"]).stdout == shown
    CliRunner().invoke(main, ["--in-place", "pkg"])
    assert "math.where" in (project / "pkg" / "clamp.py").read_text()


def test_the_tool_fingerprint_is_the_same_from_the_stat_of_its_files(tmp_path, settled):
    from pathlib import Path

    from rewriter import cache

    root = Path(cache.__file__).resolve().parent.parent
    first = _digests(tmp_path)
    assert cache.code_fingerprint(root, first) == cache.code_fingerprint(root)
    first.save()
    again = _digests(tmp_path)
    read = []
    again.read = lambda path: read.append(path)  # type: ignore[method-assign]  (nothing may be read)
    assert cache.code_fingerprint(root, again) == cache.code_fingerprint(root) and read == []


def test_a_warm_check_still_holds_a_jupytext_pair_back(tmp_path, settled, monkeypatch):
    from tests.test_notebooks import _pair

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PHIML_REWRITE_CACHE_DIR", raising=False)
    _pair(tmp_path, "ipynb,py:percent", "nb.py")
    cold, warm = check_json("."), check_json(".")
    assert warm["summary"]["cached"] == 2 and warm["summary"]["changed"] == cold["summary"]["changed"] == 0
    # (cold: the notebook's fix was planned, so libcst parsed it; warm: nothing parsed)
    assert "paired by jupytext" in json.dumps(warm)
    assert warm == {**cold, "summary": {**cold["summary"], "cached": 2, "libcst_parsed": 0}}
