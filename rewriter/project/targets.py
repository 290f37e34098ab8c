"""The library versions a project targets, which are not the ones installed next to this tool.

The API facts (`rewriter/analysis/_installed.py`) and the migration table describe the versions the
tool was built against. A project may ship its own copy of a library (a vendored `phi/` shadows the
installed PhiFlow for every module of the project), pin an older release (`phiflow==2.1.4`), run in an
interpreter of its own, or say what it targets (`target-versions`). A decision that rests on a
version-specific fact holds only where the project provably runs a version that has it; elsewhere it
is "cannot tell", and the finding names the evidence (`requirements.txt:1 pins phiflow==2.1.4`).

Evidence, strongest first: an explicit setting; a copy of the library inside the project; the
interpreter named with `--python`; the nearest declaration above the file (a notebook's own
`%pip install` first); the activated environment (`$VIRTUAL_ENV`, `$CONDA_PREFIX`). With none, the
versions the facts were read from are assumed.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Mapping, Protocol

from . import declarations
from .roots import STRONG_ROOT_MARKERS, WEAK_ROOT_MARKERS

if TYPE_CHECKING:
    from packaging.version import Version
# (`packaging` is imported where a version is compared: a run served from the cache compares none.)

# Import roots of the libraries whose versions matter -> the distributions that install them.
DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "phi": ("phiflow",),
    "phiml": ("phiml",),
    "jax": ("jax",),
    "equinox": ("equinox",),
    "diffrax": ("diffrax",),
    "torch": ("torch",),
    "tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-macos", "intel-tensorflow"),
}
_ROOT_OF = {dist: root for root, dists in DISTRIBUTIONS.items() for dist in dists}
# Folders never searched for a project's own copy of a library, nor for declarations.
_SKIPPED = frozenset({".git", ".hg", ".svn", "node_modules", "site-packages", "dist-packages", "__pycache__", ".tox",
                      ".nox", ".mypy_cache", ".pytest_cache", ".phiml-rewrite-cache", "build", "dist"})
_LOCAL_DEPTH = 2  # a project's own copy of a library: `phi/`, `src/phi/`, `PhiFlow/phi/`
# What makes a folder a project's root (beyond index.project_root's markers): only there is the project
# searched for copies of libraries; a folder that is merely where a lone script lives is not.
_ROOT_MARKERS = STRONG_ROOT_MARKERS + WEAK_ROOT_MARKERS


def root_of(name: str) -> str | None:
    """`phi` for `phiflow` or `phi`; None for a library this module does not know."""
    name = declarations.normalized(name)
    return name if name in DISTRIBUTIONS else _ROOT_OF.get(name)


@dataclass(frozen=True)
class Target:
    """What the project runs of one library."""

    root: str  # import root: "phi"
    spec: str  # PEP 440 specifier set of the versions it may run ("" : any, or a local copy)
    evidence: str  # "requirements.txt:1 pins phiflow==2.1.4"
    local: bool = False  # the project ships its own copy, which shadows any installed one


@dataclass(frozen=True)
class Targets:
    """The targets of one file's project: at most one per import root (the strongest evidence)."""

    found: tuple[Target, ...] = ()

    def of(self, root: str) -> Target | None:
        return next((t for t in self.found if t.root == root), None)

    def at_least(self, root: str, version: str) -> str:
        """"" when every version of `root` the project may run is `version` or newer (or nothing says
        otherwise: the versions the facts were read from are assumed); else why that cannot be told."""
        target = self.of(root)
        if target is None:
            return ""
        if target.local and not target.spec:
            return target.evidence
        from packaging.version import Version

        low, high = _bounds(target.spec)
        if low is not None and low >= Version(version):
            return ""
        if low is None and high is None and not target.local:
            return ""  # any version: what an install picks today
        return target.evidence

    def differs(self, root: str, installed: str | None) -> str:
        """Why the facts read from the installed `root` (`installed`) may not hold for the project ("" when they do)."""
        if installed is None:
            return "" if (t := self.of(root)) is None or not t.local else t.evidence
        from packaging.version import Version

        release = Version(installed).release
        return self.at_least(root, ".".join(map(str, release[:2])))

    def own_copies(self) -> frozenset[str]:
        """The libraries the project ships a copy of whose release the installed facts do not describe:
        their names denote the project's own code, never the installed API (nothing is canonicalized
        through them)."""
        from_facts = _facts_versions()
        return frozenset(t.root for t in self.found if t.local and self.differs(t.root, from_facts.get(t.root)))

    def digest(self) -> str:
        return self._digest

    @cached_property
    def _digest(self) -> str:
        """(Once per object: the files of a folder share theirs, `TargetReader.for_file`.)"""
        return hashlib.sha256(json.dumps([list(t.__dict__.values()) for t in self.found]).encode()).hexdigest()[:16]


def _facts_versions() -> dict[str, str]:
    """The versions the installed facts were read from (rewriter/analysis/_installed.py)."""
    from ..analysis.installed import data

    return dict(data().VERSIONS)


def _bounds(spec: str) -> tuple[Version | None, Version | None]:
    """The lowest version a specifier set admits, and the version below which every admitted one lies
    (None: unbounded on that side)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        specifiers = SpecifierSet(spec)
    except InvalidSpecifier:
        return None, None
    low = high = None
    for s in specifiers:
        text = s.version.removesuffix(".*")
        try:
            v = Version(text)
        except InvalidVersion:
            continue
        if s.operator in ("==", "===", ">=", ">", "~="):
            low = v if low is None or v > low else low
        if s.operator in ("==", "==="):
            high = v if high is None or v < high else high
        if s.operator in ("<", "<="):
            high = v if high is None or v < high else high
    return low, high


@dataclass(frozen=True)
class Setting:
    """What the user says of the project's targets: `target-versions` / `--target-version`, `python` / `--python`."""

    versions: tuple[tuple[str, str], ...] = ()  # (distribution or import root, version)
    python: str | None = None  # an interpreter whose installed packages are the project's
    where: str = "--target-version"


class Declared(Protocol):
    """What reads a notebook's and a folder's declarations (the module `declarations`, or
    stored_declarations.StoredDeclarations)."""

    def in_notebook(self, path: str) -> list[declarations.Declaration]: ...

    def in_folder(self, folder: str) -> list[declarations.Declaration]: ...


class TargetReader:
    """Reads, once per folder, the evidence for the files of one project."""

    def __init__(self, root: str, setting: Setting = Setting(), environ: Mapping[str, str] | None = None,
                 declared: Declared | None = None) -> None:
        self.root = os.path.abspath(root)
        self.setting = setting
        self.environ = os.environ if environ is None else environ
        self._declared_by = declared or declarations  # where declarations are read (the files, or stored ones)
        self._folders: dict[str, tuple[Target, ...]] = {}
        self._near: dict[str, tuple[Target, ...]] = {}
        # A folder -> the copies of libraries directly in it, and whether it is a package (`_beside`): every
        # folder below it asks the same of it.
        self._copies_at: dict[str, list[Target]] = {}
        self._package_at: dict[str, bool] = {}
        self._activated: tuple[Target, ...] | None = None
        self._modules: dict[str, Targets] = {}  # a folder -> the targets of its modules (`for_file`)

    def for_file(self, path: str) -> Targets:
        """Each library's strongest evidence for the file at `path` (later layers win). The same for every
        module of a folder (a notebook also declares its own installs): answered once per folder."""
        folder = os.path.dirname(os.path.abspath(path))
        notebook = path.endswith(".ipynb")
        if not notebook and folder in self._modules:
            return self._modules[folder]
        layers = [self._weakest(), self._declared(folder)]
        if notebook:
            layers.append(tuple(_targets(self._declared_by.in_notebook(path), "installs")))
        layers += [self._interpreter(), self._root_copies, self._beside(folder), self._explicit]
        found = {t.root: t for layer in layers for t in layer}
        targets = Targets(tuple(found[k] for k in sorted(found)))
        if not notebook:
            self._modules[folder] = targets
        return targets

    def _beside(self, folder: str) -> tuple[Target, ...]:
        """Copies of a library in the file's folder or a folder above it (up to the root): what `import phi`
        finds first when the program runs from there. A folder above that is itself a package is no place a
        program runs from (its modules are imported from above it): PhiFlow's `phi/jax/` is `phi.jax`, no
        copy of jax, for a module of `phi.field`."""
        if folder in self._near:
            return self._near[folder]
        found: dict[str, Target] = {}
        current = folder
        while current == self.root or current.startswith(self.root + os.sep):
            if current == folder or not self._package(current):
                for target in self._copies_in(current):
                    found.setdefault(target.root, target)
            if current == self.root:
                break
            current = os.path.dirname(current)
        self._near[folder] = tuple(found.values())
        return self._near[folder]

    def _copies_in(self, folder: str) -> list[Target]:
        found = self._copies_at.get(folder)
        if found is None:
            found = self._copies_at[folder] = _copies_in(folder, self.root)
        return found

    def _package(self, folder: str) -> bool:
        found = self._package_at.get(folder)
        if found is None:
            found = self._package_at[folder] = os.path.isfile(os.path.join(folder, "__init__.py"))
        return found

    # -- evidence, read once per reader -----------------------------------------------------------
    @cached_property
    def _explicit(self) -> tuple[Target, ...]:
        """The user's word: `--target-version` / `target-versions`."""
        return tuple(Target(root, f"=={version}", f"{self.setting.where} {name}={version}")
                     for name, version in self.setting.versions if (root := root_of(name)) is not None)

    @cached_property
    def _root_copies(self) -> tuple[Target, ...]:
        """The project's own copies of libraries, searched at a marked project root only (once per reader)."""
        if any(os.path.exists(os.path.join(self.root, m)) for m in _ROOT_MARKERS):
            return local_copies(self.root)
        return ()

    def _interpreter(self) -> tuple[Target, ...]:
        """The named interpreter's installed versions (`--python`)."""
        return interpreter_targets(self.setting.python) if self.setting.python else ()

    def _weakest(self) -> tuple[Target, ...]:
        """The activated environment's versions, when the user activated one."""
        if self._activated is None:
            prefix = self.environ.get("VIRTUAL_ENV") or self.environ.get("CONDA_PREFIX")
            self._activated = environment_targets(prefix, "the activated environment") if prefix else ()
        return self._activated

    def _declared(self, folder: str) -> tuple[Target, ...]:
        """The nearest declaration of each library, from `folder` up to the project's root."""
        if folder in self._folders:
            return self._folders[folder]
        inside = folder == self.root or folder.startswith(self.root + os.sep)
        parent = os.path.dirname(folder)
        above = self._declared(parent) if inside and folder != self.root and parent != folder else ()
        here = {t.root: t for t in above}
        if inside:
            for target in _targets(self._declared_by.in_folder(folder), "", os.path.relpath(folder, self.root)):
                here[target.root] = target
        self._folders[folder] = tuple(here.values())
        return self._folders[folder]


def _targets(found: list[declarations.Declaration], verb: str, folder: str = ".") -> list[Target]:
    """One target per library from a folder's (or notebook's) declarations: where a library is declared
    more than once (a base list and an extra), every version any of them admits."""
    by_root: dict[str, list[declarations.Declaration]] = {}
    for declaration in found:
        root = root_of(declaration.name)
        if root is not None:
            by_root.setdefault(root, []).append(declaration)
    out = []
    for root, group in by_root.items():
        constrained = [d for d in group if d.spec]
        if not constrained:
            continue  # declared without a version: what an install picks today
        if len(constrained) == 1:
            weakest = constrained[0]  # (the weakest of one: no version compared, `packaging` not imported)
        else:
            lows = [_bounds(d.spec)[0] for d in constrained]
            weakest = constrained[0] if any(v is None for v in lows) else constrained[lows.index(min(lows))]
        where = weakest.where if folder == "." else os.path.join(folder, weakest.where)
        said = verb or ("pins" if weakest.spec.startswith("==") else "requires")
        out.append(Target(root, weakest.spec, f"{where} {said} {weakest.text}"))
    return out


@lru_cache(maxsize=None)
def local_copies(root: str) -> tuple[Target, ...]:
    """The libraries the project ships a copy of: a package folder named like one (`phi/__init__.py`),
    at the root or one folder below it, outside virtual environments. Python finds it before the installed one
    wherever the project runs (its folder on `sys.path`), so every fact about the installed library is moot."""
    found: dict[str, Target] = {}
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        if any(e.name == "pyvenv.cfg" for e in entries):
            continue  # a virtual environment inside the project: its packages are installed ones
        for target in _copies_in(folder, root, entries):
            found.setdefault(target.root, target)
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and entry.name not in _SKIPPED and not entry.name.startswith(".") \
                    and entry.name not in DISTRIBUTIONS and depth + 1 < _LOCAL_DEPTH:
                stack.append((entry.path, depth + 1))
    return tuple(found[k] for k in sorted(found))


def _copies_in(folder: str, root: str, entries=None) -> list[Target]:
    """The copies of libraries directly in `folder` (`folder/phi/__init__.py`)."""
    out = []
    for name in DISTRIBUTIONS:
        package = os.path.join(folder, name)
        if entries is not None and not any(e.name == name for e in entries):
            continue
        if os.path.isfile(os.path.join(package, "__init__.py")):
            shown = os.path.relpath(package, root)
            version = _version_file(package)
            evidence = f"the project ships its own `{name}` ({shown}/{f', version {version}' if version else ''})"
            # Its version file says which release it is (PhiFlow's own repository, or a copy of one):
            # the facts of that release hold. Without one, nothing can be told.
            out.append(Target(name, f"=={version}" if version else "", evidence, local=True))
    return out


def _version_file(package: str) -> str:
    """PhiFlow keeps its version in `phi/VERSION` (others in `__init__.py`'s `__version__`, not read); "" if
    there is none, or it is no version."""
    from packaging.version import InvalidVersion, Version

    try:
        with open(os.path.join(package, "VERSION"), encoding="utf-8") as f:
            text = f.read().strip()[:40]
        Version(text)
        return text
    except (OSError, InvalidVersion):
        return ""


def environment_targets(prefix: str, shown: str) -> tuple[Target, ...]:
    """The versions installed in an environment, read from its `*.dist-info` metadata (nothing imported)."""
    import glob

    folders = glob.glob(os.path.join(prefix, "lib", "python*", "site-packages")) + \
        glob.glob(os.path.join(prefix, "Lib", "site-packages"))
    return _installed_in(tuple(folders), shown)


@lru_cache(maxsize=None)
def interpreter_targets(python: str) -> tuple[Target, ...]:
    """The versions installed for the interpreter `python` (its `sys.path`, asked of it once)."""
    try:
        done = subprocess.run([python, "-c", "import json, sys; print(json.dumps(sys.path))"], capture_output=True,
                              text=True, timeout=60, check=True)
        paths = tuple(p for p in json.loads(done.stdout) if p and os.path.isdir(p))
    except (OSError, subprocess.SubprocessError, ValueError):
        raise TargetError(f"--python {python}: cannot run it to read its packages") from None
    return _installed_in(paths, f"the interpreter {python}")


class TargetError(Exception):
    """A setting about the project's targets that cannot be used; the message names it."""


@lru_cache(maxsize=None)
def _installed_in(paths: tuple[str, ...], shown: str) -> tuple[Target, ...]:
    from importlib.metadata import distributions

    found: dict[str, Target] = {}
    for distribution in distributions(path=list(paths)):
        name = distribution.metadata["Name"] or ""
        root = root_of(name)
        if root is not None and root not in found:
            found[root] = Target(root, f"=={distribution.version}", f"{shown} has {name} {distribution.version}")
    return tuple(found[k] for k in sorted(found))
