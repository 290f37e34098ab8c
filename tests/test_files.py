"""Discovery: which files a run sees."""
from __future__ import annotations

import os

import pytest

from rewriter.files import discover, is_excluded


def touch(root, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def found(*paths, **kwargs) -> list[str]:
    result = discover(list(paths), **kwargs)
    assert result.errors == []
    return result.files


def test_walks_directories_for_python_files_sorted(tree):
    touch(tree, "b.py", "a.pyi", "pkg/c.py", "pkg/data.txt", "pkg/sub/d.py", "script")
    assert found(".") == ["a.pyi", "b.py", "pkg/c.py", "pkg/sub/d.py"]
    assert found("pkg") == ["pkg/c.py", "pkg/sub/d.py"]


def test_default_excludes_but_not_site_packages(tree):
    touch(
        tree,
        "ok.py",
        ".venv/lib/x.py",
        "venv/y.py",
        "build/z.py",
        "dist/w.py",
        "sub/__pycache__/v.py",
        "node_modules/u.py",
        ".git/hooks/t.py",
        ".phiml-rewrite-cache/s.py",
        "notebooks/.ipynb_checkpoints/n-checkpoint.ipynb",
        "copy/site-packages/phi/r.py",
        "copy/site-packages/pip/operations/build/q.py",  # a real subpackage named build
    )
    assert found(".") == ["copy/site-packages/phi/r.py", "copy/site-packages/pip/operations/build/q.py", "ok.py"]
    assert found("copy/site-packages") == found(".")[:2]


def test_python_environments_are_left_out_whatever_their_name(tree):
    touch(tree, "main.py", "env/pyvenv.cfg", "env/lib/site-packages/jax/core.py", "envs/sim/conda-meta/history",
          "envs/sim/lib/site-packages/phi/flow.py", "copy/site-packages/phi/r.py")
    assert found(".") == ["copy/site-packages/phi/r.py", "main.py"]
    assert found(".", exclude=[]) == found(".")  # not a pattern: replacing the excludes keeps it
    assert found("env") == ["env/lib/site-packages/jax/core.py"]  # named explicitly: walked
    assert found("env/lib/site-packages/jax/core.py", "main.py", force_exclude=True) == ["main.py"]
    assert found("env/lib/site-packages/jax/core.py") == ["env/lib/site-packages/jax/core.py"]
    assert found("env/lib", "main.py", force_exclude=True) == ["main.py"]


def test_exclude_replaces_defaults_and_extend_exclude_adds(tree):
    touch(tree, "build/a.py", "gen/b.py", "src/c.py", "src/gen_d.py")
    assert found(".", exclude=["gen/"]) == ["build/a.py", "src/c.py", "src/gen_d.py"]
    assert found(".", extend_exclude=["gen_*.py"]) == ["gen/b.py", "src/c.py"]


def test_plain_name_and_wildcard_patterns_agree_with_git(tree):
    touch(tree, "a.py", "gen.py", "gen/b.py", "x/gen.py", "x/y/gen/c.py", "data/d.py", "data.py")
    (tree / ".gitignore").write_text("gen\ndata/\n")
    assert found(".") == ["a.py", "data.py", "gen.py", "x/gen.py"]  # what `git add -A` takes


def test_exclude_patterns_are_relative_to_base(tree):
    touch(tree, "proj/src/a.py", "proj/gen/b.py", "proj/src/gen/c.py")
    # Anchored pattern: only proj/gen, not proj/src/gen.
    assert found("proj", base=str(tree / "proj"), extend_exclude=["/gen"]) == ["proj/src/a.py", "proj/src/gen/c.py"]


def test_gitignore_nested_relative_to_its_directory(tree):
    touch(tree, "a.py", "ignored.py", "pkg/b.py", "pkg/local.py", "pkg/gen/c.py", "other/local.py")
    (tree / ".gitignore").write_text("ignored.py\n")
    (tree / "pkg" / ".gitignore").write_text("/local.py\ngen/\n")
    assert found(".") == ["a.py", "other/local.py", "pkg/b.py"]


def test_gitignore_negation_and_deeper_file_wins(tree):
    touch(tree, "a_gen.py", "keep_gen.py", "sub/b_gen.py")
    (tree / ".gitignore").write_text("*_gen.py\n!keep_gen.py\n")
    (tree / "sub" / ".gitignore").write_text("!b_gen.py\n")
    assert found(".") == ["keep_gen.py", "sub/b_gen.py"]


def test_gitignore_outside_the_given_directory_applies_only_in_a_work_tree(tree):
    touch(tree, "pkg/a.py", "pkg/secret.py")
    (tree / ".gitignore").write_text("secret.py\n")
    assert found("pkg") == ["pkg/a.py", "pkg/secret.py"]  # no repository: nothing above pkg/ is read
    (tree / ".git").mkdir()
    assert found("pkg") == ["pkg/a.py"]
    (tree / ".git" / "info").mkdir()
    (tree / ".git" / "info" / "exclude").write_text("a.py\n")
    assert found("pkg") == []


def test_respect_gitignore_can_be_turned_off(tree):
    touch(tree, "a.py", "b.py")
    (tree / ".gitignore").write_text("b.py\n")
    assert found(".", respect_gitignore=False) == ["a.py", "b.py"]


def test_explicit_files_are_processed_even_if_excluded(tree):
    touch(tree, "build/a.py", "ignored.py", "script")
    (tree / ".gitignore").write_text("ignored.py\n")
    assert found("build/a.py", "ignored.py", "script") == ["build/a.py", "ignored.py", "script"]


def test_force_exclude_applies_excludes_to_explicit_files(tree):
    touch(tree, "build/a.py", "ignored.py", "ok.py")
    (tree / ".gitignore").write_text("ignored.py\n")
    assert found("build/a.py", "ignored.py", "ok.py", force_exclude=True) == ["ok.py"]
    assert is_excluded("build/a.py") and is_excluded("ignored.py") and not is_excluded("ok.py")


def test_explicit_excluded_directory_is_walked_but_keeps_other_excludes(tree):
    touch(tree, "build/a.py", "build/.venv/b.py", "build/sub/c.py")
    (tree / ".git").mkdir()
    (tree / ".gitignore").write_text("build/\n")
    assert found("build") == ["build/a.py", "build/sub/c.py"]


def test_missing_path_is_an_error_and_others_are_still_found(tree):
    touch(tree, "a.py")
    result = discover(["missing.py", "a.py", "nodir/"])
    assert result.files == ["a.py"]
    assert result.errors == [("missing.py", "no such file or directory"), ("nodir/", "no such file or directory")]


def test_broken_symlink_named_explicitly_is_an_error(tree):
    os.symlink(tree / "nowhere.py", tree / "dangling.py")
    result = discover(["dangling.py"])
    assert result.files == [] and result.errors == [("dangling.py", "broken symbolic link")]


def test_symlinks_never_escape_the_roots_and_never_duplicate(tree):
    touch(tree, "proj/a.py", "proj/pkg/b.py", "outside/secret.py", "outside/dir/c.py")
    proj = tree / "proj"
    os.symlink(tree / "outside" / "secret.py", proj / "link_out.py")  # file outside the root
    os.symlink(tree / "outside" / "dir", proj / "dirlink")  # directory outside the root
    os.symlink(proj / "pkg" / "b.py", proj / "alias.py")  # second name for b.py
    os.symlink(proj / "pkg", proj / "pkglink")  # second name for a whole directory
    os.symlink(proj, proj / "pkg" / "loop")  # a cycle
    assert found("proj") == ["proj/a.py", "proj/pkg/b.py"]


def test_same_file_given_twice_or_through_overlapping_roots_is_found_once(tree):
    touch(tree, "src/pkg/a.py")
    assert found("src", "src/pkg", "src/pkg/a.py", "./src/pkg/a.py") == ["src/pkg/a.py"]


def test_symlink_inside_the_roots_is_kept_when_its_target_is_not_found_otherwise(tree):
    touch(tree, "root1/a.py", "root2/real.py")
    os.symlink(tree / "root2" / "real.py", tree / "root1" / "link.py")
    assert found("root1") == ["root1/a.py"]  # target outside the only root
    assert found("root1", "root2") == ["root1/a.py", "root2/real.py"]  # deduped, real path preferred


def test_absolute_paths_stay_absolute(tree):
    touch(tree, "a.py")
    assert found(str(tree)) == [str(tree / "a.py")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any directory")
def test_unreadable_directory_is_an_error(tree):
    touch(tree, "a.py", "locked/b.py")
    (tree / "locked").chmod(0)
    try:
        result = discover(["."])
    finally:
        (tree / "locked").chmod(0o755)
    assert result.files == ["a.py"]
    assert [p for p, _ in result.errors] == ["locked"]


def test_real_path_is_os_realpath_through_links_of_folders_and_files(tmp_path, monkeypatch):
    """files.real_path reads a path that is no link itself as its folder's real path and its name:
    the same answer as os.path.realpath, through links to folders, to files, relative links, `..`
    after a link, missing files, and relative paths."""
    import os

    from rewriter.files import forget_real_paths, real_path

    d = str(tmp_path)
    os.makedirs(f"{d}/a/b")
    (tmp_path / "a" / "b" / "f.py").write_text("")
    os.symlink(f"{d}/a", f"{d}/link")
    os.symlink(f"{d}/a/b/f.py", f"{d}/a/flink.py")
    os.symlink("b", f"{d}/a/rel")
    monkeypatch.chdir(tmp_path)
    cases = [f"{d}/a/b/f.py", f"{d}/link/b/f.py", f"{d}/a/flink.py", f"{d}/link/flink.py", f"{d}/a/rel/f.py",
             f"{d}/link/../a/b/f.py", f"{d}/a/b/missing.py", f"{d}/nope/x/y.py", "link/b/f.py", "a/rel/f.py", "x.py",
             f"{d}/a/b/", f"{d}//a//b//f.py", f"{d}/a/./b/f.py", ".", ".."]
    for path in cases:
        forget_real_paths()
        assert real_path(path) == os.path.realpath(path), path
    forget_real_paths()
    assert [real_path(p) for p in cases] == [os.path.realpath(p) for p in cases]  # with the folders remembered
