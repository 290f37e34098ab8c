"""What one file's analysis must know of the user's world beyond its own code.

Two things a file cannot say about itself: which versions of the libraries its project runs
(targets.py), and whether code outside the run may call its functions. A public function of a module
in a package the project distributes (a `pyproject.toml` with `[project]`, a `setup.py`, a
`setup.cfg`) is importable by code nobody handed us, and so is one of a package analysed without the
project index: what the calls we see pass it proves nothing about those others
(analysis/callsites.py). A script, a notebook, or a package of a project that is not installable has
no callers but the ones in the project, which the index reads.
"""
from __future__ import annotations

import hashlib
import os
import tomllib
from dataclasses import dataclass, field

from ..analysis.aliases import package_of
from .roots import project_root
from .targets import Setting, TargetReader, Targets


@dataclass(frozen=True)
class World:
    """What a file's project targets and who may call its module from outside the run: the world around the file."""
    targets: Targets = field(default_factory=Targets)
    # Why the module's public functions may have callers outside the run ("" : every caller is in the project)
    open_module: str = ""
    # The package its relative imports start from (analysis/aliases.py): `phi.physics` for
    # `phi/physics/fluid.py`, `phi.math` for `phi/math/__init__.py`; "" for a script or a notebook
    package: str = ""

    def digest(self) -> str:
        return hashlib.sha256(f"{self.targets.digest()}|{self.open_module}|{self.package}".encode()).hexdigest()[:16]


class WorldReader:
    """Each file's World, for one run: readers and answers are kept per project root and folder."""

    def __init__(self, setting: Setting = Setting(), index=None, environ=None, declared=None) -> None:
        self.setting = setting
        self.index = index
        self.environ = environ
        self.declared = declared  # where declarations are read (TargetReader; None: from the files)
        self._readers: dict[str, TargetReader] = {}
        self._distributed: dict[str, str] = {}
        self._worlds: dict[tuple[str, str | None], World] = {}
        self._roots: dict[str, str] = {}  # a folder -> its project root (`_project_root`)
        self._markers: dict[str, tuple[bool, bool]] = {}  # a folder -> the root markers it holds (roots.project_root)

    def __call__(self, path: str, root: str | None = None) -> World:
        found = self._worlds.get((path, root))
        if found is None:
            found = self._worlds[(path, root)] = self._read(path, root)
        return found

    def _read(self, path: str, root: str | None) -> World:
        from .index import module_name

        root = os.path.abspath(root or (self.index.root if self.index is not None else self._project_root(path)))
        if not os.path.abspath(path).startswith(root + os.sep):
            root = self._project_root(path)  # a file outside the run's project (`phiml-rewrite repo_a repo_b`): its own
        reader = self._readers.get(root)
        if reader is None:
            reader = self._readers[root] = TargetReader(root, self.setting, self.environ, self.declared)
        return World(reader.for_file(path), self._open_module(path, root, module_name), file_package(path))

    def _project_root(self, path: str) -> str:
        """roots.project_root of the file at `path`, looked for once per folder, each folder's markers
        stat'ed once: it reads every folder up to the file system's root. (A World is a file's: its folder
        is the one the path names, with no stat to tell it is no folder itself.)"""
        folder = os.path.dirname(os.path.abspath(path))
        found = self._roots.get(folder)
        if found is None:
            found = self._roots[folder] = project_root(path, self._markers)
        return found

    def _open_module(self, path: str, root: str, module_name) -> str:
        if path.endswith(".ipynb"):
            return ""
        module, package = module_name(path)
        if "." not in module and not package:
            return ""  # a script: imported only by name, from its own folder, by files the index reads
        if self.index is None:
            return f"`{module}` is part of a package, analysed without the project index"
        if root not in self._distributed:
            self._distributed[root] = _distribution(root)
        found = self._distributed[root]
        return f"`{module}` is in a package that {found} makes installable" if found else ""


def file_package(path: str) -> str:
    """The package relative imports in the file at `path` start from ("" for a notebook, which is never
    imported, and for a script outside any package)."""
    from .index import module_name

    if path.lower().endswith(".ipynb"):
        return ""
    return package_of(*module_name(path))


def _distribution(root: str) -> str:
    """The file that makes the project installable (`pyproject.toml`'s `[project]`, `setup.py`, `setup.cfg`),
    as messages name it; "" when there is none."""
    for name in ("setup.py", "setup.cfg"):
        if os.path.isfile(os.path.join(root, name)):
            return name
    try:
        with open(os.path.join(root, "pyproject.toml"), "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return ""
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    return "pyproject.toml" if "project" in data or "poetry" in tool else ""
