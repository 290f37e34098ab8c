"""`[tool.phiml-rewrite]` in pyproject.toml, merged with command-line flags.

The configuration is the nearest `pyproject.toml` *that has a `[tool.phiml-rewrite]` table*,
searched upward from the common parent of the given paths (ruff's rule: a sub-project's
pyproject.toml without our table does not hide the repository's configuration). Relative globs
(`exclude`, `per-file-ignores`) are resolved against that file's directory, or against the current
directory when there is no configuration. Command-line flags override the file.

```toml
[tool.phiml-rewrite]
select = ["PML1", "PML2"]          # codes, code prefixes or kebab-case names; default: all
ignore = ["jit-in-loop"]
exclude = ["vendored/"]            # replaces the default excludes (gitignore syntax)
extend-exclude = ["generated/"]    # adds to them
extend-include = ["*.pyw"]         # more files to check besides *.py, *.pyi and *.ipynb (gitignore syntax)
project-root = "."                 # the project indexed for cross-module facts (default: nearest pyproject.toml or VCS root)
project = true                     # false: analyse every file alone
unsafe-fixes = false
python = ".venv/bin/python"        # the project's interpreter: the library versions it has are the project's
[tool.phiml-rewrite.target-versions]  # the library versions the project runs (as Ruff's target-version)
phiflow = "3.4"
[tool.phiml-rewrite.per-file-ignores]
"tests/**" = ["PML5"]
```
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Sequence

import pathspec

from typing import TYPE_CHECKING

from . import registry

if TYPE_CHECKING:
    from .codemod import Codemod

SECTION = "phiml-rewrite"


class ConfigError(Exception):
    """A configuration file or flag that cannot be used; the message names the key and the file."""


@dataclass(frozen=True)
class Config:
    """The run's configuration as `pyproject.toml` and the command line give it, globs resolved against `root`."""
    root: str  # absolute directory that relative globs are resolved against
    path: str | None = None  # the pyproject.toml the settings came from
    select: tuple[str, ...] | None = None  # None: every rule
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None  # None: files.DEFAULT_EXCLUDES
    extend_exclude: tuple[str, ...] = ()
    extend_include: tuple[str, ...] = ()  # more files than files.PYTHON_SUFFIXES (gitignore syntax)
    unsafe_fixes: bool = False
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The project whose index every file's analysis uses (rewriter/project): None, the nearest
    # directory with a pyproject.toml or a version-control root; `project = false`: files alone.
    project_root: str | None = None
    project: bool = True
    # The library versions the project runs (rewriter/project/targets.py): (distribution, version) pairs,
    # and an interpreter whose installed packages are the project's.
    target_versions: tuple[tuple[str, str], ...] = ()
    python: str | None = None
    _cache: dict = field(default_factory=dict, init=False, compare=False, repr=False)
    _codemods: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def override(
        self,
        *,
        select: Sequence[str] | None = None,
        ignore: Sequence[str] | None = None,
        exclude: Sequence[str] | None = None,
        extend_exclude: Sequence[str] | None = None,
        extend_include: Sequence[str] | None = None,
        unsafe_fixes: bool | None = None,
        target_versions: Sequence[str] | None = None,
        python: str | None = None,
    ) -> "Config":
        """Layer command-line flags (None: not given) on top, the way ruff layers them.

        `--select` starts the selection afresh (the file's `ignore` is dropped with its `select`);
        `--ignore` and `--extend-exclude` add to what the file says; `--exclude` replaces it.
        """
        changes: dict[str, Any] = {}
        if select is not None:
            changes["select"] = tuple(select)
            changes["ignore"] = tuple(ignore or ())
        elif ignore is not None:
            changes["ignore"] = (*self.ignore, *ignore)
        if exclude is not None:
            changes["exclude"] = tuple(exclude)
        if extend_exclude is not None:
            changes["extend_exclude"] = (*self.extend_exclude, *extend_exclude)
        if extend_include is not None:
            changes["extend_include"] = (*self.extend_include, *extend_include)
        if unsafe_fixes is not None:
            changes["unsafe_fixes"] = unsafe_fixes
        if target_versions:
            given = dict(self.target_versions)
            given.update(_version_pair(text, "--target-version", "the command line") for text in target_versions)
            changes["target_versions"] = tuple(given.items())
        if python is not None:
            changes["python"] = python
        config = replace(self, **changes)
        config.validate()
        return config

    def target_setting(self):
        """The user's word on the project's library versions (rewriter/project/targets.Setting)."""
        from .project.targets import Setting

        where = f"{os.path.basename(self.path)} target-versions" if self.path and self.target_versions else "--target-version"
        return Setting(self.target_versions, self.python, where)

    def validate(self) -> None:
        """Unknown rule names raise ConfigError (select/ignore flags are checked by the caller too)."""
        where = f" in {self.path}" if self.path else ""
        from .project.targets import root_of

        for name, _ in self.target_versions:
            if root_of(name) is None:
                raise ConfigError(f"target-versions{where}: unknown library {name!r} (known: phiflow, phiml, jax, "
                                  "equinox, diffrax, torch, tensorflow)")
        for key, selectors in (("select", self.select or ()), ("ignore", self.ignore)):
            try:
                registry.check_selectors(selectors)
            except registry.UnknownRule as e:
                raise ConfigError(f"{key}{where}: {e}") from None
        for glob, codes in self.per_file_ignores:
            try:
                registry.check_selectors(codes)
            except registry.UnknownRule as e:
                raise ConfigError(f"per-file-ignores[{glob!r}]{where}: {e}") from None

    @cached_property
    def _per_file_specs(self) -> tuple[tuple[pathspec.GitIgnoreSpec, tuple[str, ...]], ...]:
        return tuple((pathspec.GitIgnoreSpec.from_lines([glob]), codes) for glob, codes in self.per_file_ignores)

    def ignores_for(self, path: str) -> tuple[str, ...]:
        """The selectors `per-file-ignores` adds for `path` (globs relative to the config's directory)."""
        if not self.per_file_ignores:
            return ()
        abs_path = os.path.abspath(path)
        rel = os.path.relpath(abs_path, self.root).replace(os.sep, "/")
        if rel.startswith("../"):
            rel = os.path.basename(abs_path)  # outside the project: only name-only globs can match
        extra: list[str] = []
        for spec, codes in self._per_file_specs:
            if spec.match_file(rel):
                extra.extend(codes)
        return tuple(extra)

    def codemods_for(self, path: str) -> tuple[type[Codemod], ...]:
        """The codemods enabled for one file: select/ignore, then that file's per-file-ignores. The same
        tuple for files with the same codes: a chunk of jobs sent to a worker pickles it once."""
        codes = self.codes_for(path)
        found = self._codemods.get(codes)
        if found is None:
            wanted = set(codes)
            found = self._codemods[codes] = tuple(c for c in registry.all_codemods() if c.CODE in wanted)
        return found

    def codes_for(self, path: str) -> tuple[str, ...]:
        """The codes of `codemods_for(path)`, without importing a rule (registry.rule_index)."""
        extra = self.ignores_for(path)
        key = tuple(sorted(set(extra)))
        if key not in self._cache:
            self._cache[key] = registry.select_codes(self.select, (*self.ignore, *key))
        return self._cache[key]


# -- finding and reading the file -------------------------------------------------------------


def find_pyproject(paths: Sequence[str] = (), cwd: str | None = None) -> str | None:
    """The nearest pyproject.toml with a [tool.phiml-rewrite] table above the paths' common parent."""
    start = _common_parent(paths, cwd or os.getcwd())
    current = start
    while True:
        candidate = os.path.join(current, "pyproject.toml")
        if os.path.isfile(candidate) and _has_section(candidate):
            return candidate
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _common_parent(paths: Sequence[str], cwd: str) -> str:
    if not paths:
        return os.path.abspath(cwd)
    dirs = []
    for p in paths:
        abs_p = os.path.abspath(os.path.join(cwd, p))
        dirs.append(abs_p if os.path.isdir(abs_p) else os.path.dirname(abs_p))
    try:
        return os.path.commonpath(dirs)
    except ValueError:  # different drives on Windows
        return os.path.abspath(cwd)


def _read_toml(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None


def _has_section(path: str) -> bool:
    # A broken pyproject.toml on the way up is an error (as in ruff and black): it may be ours.
    tool = _read_toml(path).get("tool", {})
    return isinstance(tool, dict) and SECTION in tool


def load(paths: Sequence[str] = (), cwd: str | None = None) -> Config:
    """The configuration that applies to `paths` (defaults when there is no file)."""
    cwd = os.path.abspath(cwd or os.getcwd())
    found = find_pyproject(paths, cwd)
    if found is None:
        return Config(root=cwd)
    return from_file(found)


def from_file(path: str) -> Config:
    table = _read_toml(path).get("tool", {}).get(SECTION, {})
    config = from_table(table, path)
    config.validate()
    return config


def from_table(table: Any, path: str) -> Config:
    """Check every key and type; errors name the key and the file."""
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{SECTION}] must be a table")
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{path}: unknown key {key!r} in [tool.{SECTION}] (known keys: {known})")
        attr, check = _KEYS[key]
        values[attr] = check(value, key, path)
    return Config(root=os.path.dirname(os.path.abspath(path)), path=path, **values)


def _strings(value: Any, key: str, path: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be a list of strings, got {value!r}")
    return tuple(value)


def _bool(value: Any, key: str, path: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be true or false, got {value!r}")
    return value


def _per_file(value: Any, key: str, path: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be a table of glob = [codes], got {value!r}")
    return tuple((glob, _strings(codes, f"{key}.{glob!r}", path)) for glob, codes in value.items())


_KEYS = {
    "select": ("select", _strings),
    "ignore": ("ignore", _strings),
    "exclude": ("exclude", _strings),
    "extend-exclude": ("extend_exclude", _strings),
    "extend-include": ("extend_include", _strings),
    "unsafe-fixes": ("unsafe_fixes", _bool),
    "per-file-ignores": ("per_file_ignores", _per_file),
    "project-root": ("project_root", lambda value, key, path: os.path.normpath(
        os.path.join(os.path.dirname(os.path.abspath(path)), _string(value, key, path)))),
    "project": ("project", _bool),
    "target-versions": ("target_versions", lambda value, key, path: _versions(value, key, path)),
    "python": ("python", lambda value, key, path: os.path.normpath(
        os.path.join(os.path.dirname(os.path.abspath(path)), _string(value, key, path)))),
}


def _versions(value: Any, key: str, path: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be a table of library = \"version\", got {value!r}")
    return tuple(_version_pair(f"{name}={version}", key, path) for name, version in value.items())


def _version_pair(text: str, key: str, where: str) -> tuple[str, str]:
    """`phiflow=3.4` -> ("phiflow", "3.4"); ConfigError naming `key` otherwise."""
    from packaging.version import InvalidVersion, Version

    name, sep, version = text.partition("=")
    version = version.lstrip("=").strip()
    try:
        Version(version)
    except InvalidVersion:
        sep = ""
    if not sep or not name.strip():
        raise ConfigError(f"{where}: {key} takes LIBRARY=VERSION (e.g. phiflow=3.4), got {text!r}")
    return name.strip(), version


def _string(value: Any, key: str, path: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be a string, got {value!r}")
    return value
