"""[tool.phiml-rewrite]: where it is found, what it may say, how flags layer on top."""
from __future__ import annotations

import pytest

from rewriter.config import Config, ConfigError, find_pyproject, load


def write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def codes(codemods) -> list[str]:
    return [c.CODE for c in codemods]


def test_no_file_gives_defaults_rooted_at_cwd(tmp_path, fake_rules):
    config = load([str(tmp_path)], cwd=str(tmp_path))
    assert config.path is None and config.root == str(tmp_path)
    assert codes(config.codemods_for(str(tmp_path / "a.py"))) == ["PML901", "PML902", "PML903"]


def test_nearest_pyproject_with_our_table_above_the_common_parent(tmp_path, fake_rules):
    write(tmp_path / "pyproject.toml", '[tool.phiml-rewrite]\nselect = ["PML901"]\n')
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'sub'\n")  # not ours: skipped
    write(tmp_path / "sub" / "inner" / "pyproject.toml", '[tool.phiml-rewrite]\nignore = ["no-qux"]\n')
    (tmp_path / "sub" / "inner" / "pkg").mkdir()
    (tmp_path / "sub" / "x").mkdir()
    assert find_pyproject(["sub/x"], cwd=str(tmp_path)) == str(tmp_path / "pyproject.toml")
    inner = find_pyproject(["sub/inner/pkg", "sub/inner/a.py"], cwd=str(tmp_path))
    assert inner == str(tmp_path / "sub" / "inner" / "pyproject.toml")
    # Paths in two projects: the common parent decides.
    assert find_pyproject(["sub/inner/pkg", "sub/x"], cwd=str(tmp_path)) == str(tmp_path / "pyproject.toml")
    config = load(["sub/inner/pkg"], cwd=str(tmp_path))
    assert config.root == str(tmp_path / "sub" / "inner")
    assert codes(config.codemods_for("any.py")) == ["PML901", "PML902"]


def test_all_keys(tmp_path, fake_rules, monkeypatch):
    write(
        tmp_path / "pyproject.toml",
        """
[tool.phiml-rewrite]
select = ["PML9"]
ignore = ["baz-to-bar"]
exclude = ["vendored/"]
extend-exclude = ["gen/"]
unsafe-fixes = true

[tool.phiml-rewrite.per-file-ignores]
"tests/**" = ["PML901"]
"__init__.py" = ["no-qux"]
""",
    )
    config = load([], cwd=str(tmp_path))
    assert config.select == ("PML9",) and config.ignore == ("baz-to-bar",)
    assert config.exclude == ("vendored/",) and config.extend_exclude == ("gen/",)
    assert config.unsafe_fixes is True
    assert codes(config.codemods_for(str(tmp_path / "src" / "a.py"))) == ["PML901", "PML903"]
    assert codes(config.codemods_for(str(tmp_path / "tests" / "deep" / "t.py"))) == ["PML903"]
    assert codes(config.codemods_for(str(tmp_path / "src" / "__init__.py"))) == ["PML901"]
    # per-file globs are relative to the config file, not to the current directory
    monkeypatch.chdir(tmp_path.parent)
    assert codes(config.codemods_for(str(tmp_path / "tests" / "t.py"))) == ["PML903"]


@pytest.mark.parametrize(
    "body, words",
    [
        ('selec = ["PML9"]', ["unknown key 'selec'", "pyproject.toml"]),
        ('select = "PML901"', ["select must be a list of strings", "pyproject.toml"]),
        ("unsafe-fixes = 1", ["unsafe-fixes must be true or false", "pyproject.toml"]),
        ('per-file-ignores = ["a"]', ["per-file-ignores must be a table", "pyproject.toml"]),
        ('per-file-ignores = {"a.py" = "PML901"}', ["per-file-ignores.'a.py' must be a list", "pyproject.toml"]),
        ('select = ["PML777"]', ["select in", "pyproject.toml", "unknown rule 'PML777'"]),
        ('per-file-ignores = {"a.py" = ["nope"]}', ["per-file-ignores['a.py']", "unknown rule 'nope'"]),
    ],
)
def test_bad_configuration_names_the_key_and_the_file(tmp_path, fake_rules, body, words):
    write(tmp_path / "pyproject.toml", f"[tool.phiml-rewrite]\n{body}\n")
    with pytest.raises(ConfigError) as info:
        load([], cwd=str(tmp_path))
    for word in words:
        assert word in str(info.value)
    assert str(tmp_path) in str(info.value)


def test_invalid_toml_is_an_error_naming_the_file(tmp_path, fake_rules):
    write(tmp_path / "pyproject.toml", "[tool.phiml-rewrite]\nselect = [\n")
    with pytest.raises(ConfigError, match="pyproject.toml: invalid TOML"):
        load([], cwd=str(tmp_path))


def test_flags_layer_like_ruff(tmp_path, fake_rules):
    config = Config(root=str(tmp_path), select=("PML9",), ignore=("PML903",), extend_exclude=("a/",))
    assert codes(config.override(ignore=["PML902"]).codemods_for("x.py")) == ["PML901"]
    # --select starts afresh: the file's ignore goes with the file's select
    assert codes(config.override(select=["PML903"]).codemods_for("x.py")) == ["PML903"]
    assert config.override(extend_exclude=["b/"]).extend_exclude == ("a/", "b/")
    assert config.override(exclude=["c/"]).exclude == ("c/",)
    assert config.override(unsafe_fixes=True).unsafe_fixes is True
    assert config.override() == config
