"""A notebook's own installs are read from the store where its digest is known, and again once it changes."""
from __future__ import annotations

import os
import time

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from rewriter.cache import ResultCache
from rewriter.file_digests import FileDigests
from rewriter.project.declarations import in_notebook
from rewriter.project.stored_declarations import StoredDeclarations

from tests.harness.cached_runs import check_json


def _notebook(path, pin: str) -> None:
    nb = new_notebook(cells=[new_code_cell(f"!pip install {pin}"), new_code_cell("import jax\n\nleaves = jax.tree_map(abs, [1, -2])")])
    nbformat.write(nb, str(path))


def _installs(tmp_path) -> tuple[StoredDeclarations, FileDigests, list[str]]:
    cache = ResultCache.at(tmp_path / "cache")
    digests = FileDigests(cache)
    read: list[str] = []
    original = digests.read
    digests.read = lambda path: (read.append(os.path.basename(path)), original(path))[1]  # type: ignore[method-assign]
    return StoredDeclarations(cache, digests), digests, read


def test_stored_installs_are_the_notebooks_and_need_no_read_once_stored(tmp_path, settled):
    path = tmp_path / "demo.ipynb"
    _notebook(path, "jax==0.4.6")
    installs, digests, read = _installs(tmp_path)
    assert installs.in_notebook(str(path)) == in_notebook(str(path)) != [] and read == ["demo.ipynb"]
    digests.save()
    installs.save()
    again, _, read_again = _installs(tmp_path)
    assert again.in_notebook(str(path)) == in_notebook(str(path)) and read_again == []


def test_a_changed_install_line_is_read_again(tmp_path, settled):
    path = tmp_path / "demo.ipynb"
    _notebook(path, "jax==0.4.6")
    installs, digests, _ = _installs(tmp_path)
    installs.in_notebook(str(path))
    digests.save()
    installs.save()
    time.sleep(0.01)
    _notebook(path, "jax==0.6.0")
    again, _, read = _installs(tmp_path)
    assert [d.spec for d in again.in_notebook(str(path))] == ["==0.6.0"] and read == ["demo.ipynb"]


def test_a_warm_check_follows_a_notebooks_pin(tmp_path, settled, monkeypatch):
    """Pinned to jax 0.4.6, `jax.tree.map` (the fix) does not exist yet; pinned to 0.6.0, it does."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PHIML_REWRITE_CACHE_DIR", raising=False)
    path = tmp_path / "demo.ipynb"
    _notebook(path, "jax==0.4.6")
    old = check_json(".")
    assert check_json(".") == {**old, "summary": {**old["summary"], "cached": 1}}
    time.sleep(0.01)
    _notebook(path, "jax==0.6.0")
    new = check_json(".")
    assert new["summary"]["cached"] == 0 and new == check_json("--no-cache", ".")
    [before], [after] = old["findings"], new["findings"]
    assert before["code"] == after["code"] == "PML603" and before["fix"] is None and after["fix"] is not None


def _folder(tmp_path):
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "requirements.txt").write_text("-r base.txt\nphiml==3.0\n")
    (project / "base.txt").write_text("jax>=0.4.20\n")
    return project


def _stored_folder(tmp_path, project):
    declared, digests, read = _installs(tmp_path)
    found = declared.in_folder(str(project))
    digests.save()
    declared.save()
    return found, read


@pytest.mark.parametrize("change", ["none", "included", "added", "removed"])
def test_a_folders_declarations_are_read_again_exactly_when_a_file_they_came_from_changes(tmp_path, settled, change):
    from rewriter.project.declarations import in_folder

    project = _folder(tmp_path)
    first, read = _stored_folder(tmp_path, project)
    assert first == in_folder(str(project)) and sorted(read) == ["base.txt", "requirements.txt"]
    time.sleep(0.01)
    if change == "included":  # a file read through `-r`, the same size
        (project / "base.txt").write_text("jax>=0.4.30\n")
    elif change == "added":
        (project / "pyproject.toml").write_text('[project]\nname = "p"\ndependencies = ["numpy<2"]\n')
    elif change == "removed":
        (project / "requirements.txt").unlink()
    again, read_again = _stored_folder(tmp_path, project)
    assert again == in_folder(str(project))
    assert (again == first) == (change == "none")
    assert (read_again == []) == (change in ("none", "removed"))  # (removed: no file left to read)
