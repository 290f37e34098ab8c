"""Paths on the command line -> the sorted, de-duplicated Python files to process.

Conventions follow ruff and black:

* Directories are walked; files ending in `.py` / `.pyi` / `.ipynb` are collected, and those that
  `extend_include` patterns (gitignore syntax, relative to `base`) match. A file named explicitly is
  always processed, whatever its name and whatever excludes it (unless `force_exclude`, which is
  what the pre-commit hook uses: pre-commit names every file explicitly).
* `exclude` patterns (gitignore syntax, relative to `base`, the configuration's directory, or to
  the walked directory when that is outside `base`) replace `DEFAULT_EXCLUDES`; `extend_exclude`
  adds to them. `site-packages` is deliberately not excluded: the tool is run over copies of
  installed packages.
* `.gitignore` files are honoured whether or not the tree is a git checkout, so a copied tree gives
  the same result as the checkout it came from: every `.gitignore` inside a walked directory
  applies to its own subtree, and inside a git work tree the `.gitignore` files above the walked
  directory (up to the work tree root) and `.git/info/exclude` apply too. The global git excludes
  file is not read. Outside a work tree, nothing above the given directories is read.
* A directory named explicitly is walked even if a pattern excludes it; the patterns that exclude
  it are not applied inside it (`phiml-rewrite build/` means "yes, build/").
* A Python environment met inside a walked directory (a folder holding `pyvenv.cfg`, as every venv
  and virtualenv does, or `conda-meta/`, as every conda environment does) is left out whatever its
  name and whatever the excludes: `env/` holds installed packages, not the project's code, and
  `--in-place` must never rewrite them. Named explicitly, it is walked.
* Symbolic links to directories are never followed (their targets, if wanted, are inside a root
  anyway); a linked file is taken only if its target lies inside one of the roots. Every file is
  reported once, by its real path; a path that does not go through a link is preferred.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterable, Sequence

import pathspec

PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")  # notebooks: rewriter/notebooks

DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "node_modules",
    # Jupyter's autosaved copies of the notebooks beside them: their findings would repeat the
    # notebooks', and `--in-place` would rewrite the copies.
    ".ipynb_checkpoints",
    # Anchored: a top-level build/ or dist/ holds artefacts, but installed packages have real
    # subpackages of those names (pip._internal.operations.build) and we run over such copies.
    "/build/",
    "/dist/",
    ".phiml-rewrite-cache",
)
# What a Python environment's folder holds, whatever it is named: a venv's or virtualenv's configuration
# file, a conda environment's metadata folder.
ENVIRONMENT_MARKERS = frozenset({"pyvenv.cfg", "conda-meta"})


@dataclass
class Discovered:
    """Files in path order, and the paths that could not be used (path, reason)."""

    files: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class _Layer:
    """One set of gitignore-style patterns, matched relative to `base` (an absolute directory)."""

    base: str
    spec: pathspec.GitIgnoreSpec

    def check(self, abs_path: str, is_dir: bool) -> bool | None:
        """True: excluded, False: re-included by a `!` pattern, None: no pattern speaks."""
        rel = _relative(abs_path, self.base)
        if rel is None or rel == "":
            return None
        if is_dir:
            rel += "/"
        return self.spec.check_file(rel).include

    def check_entry(self, abs_path: str, name: str, is_dir: bool) -> bool | None:
        """`check` for an entry met during a walk, whose parent directories are known not excluded.

        Most patterns are plain names (`build/`, `__pycache__`): a set lookup instead of a regex
        per pattern. Only valid without `!` patterns, where the order of patterns matters.
        """
        fast = self._plain_names
        if fast is None:
            return self.check(abs_path, is_dir)
        names, dir_names, rest = fast
        if name in names or (is_dir and name in dir_names):
            return True
        return rest.check(abs_path, is_dir) if rest is not None else None

    @cached_property
    def _plain_names(self) -> tuple[frozenset[str], frozenset[str], _Layer | None] | None:
        if any(p.include is False for p in self.spec.patterns):
            return None
        names, dir_names, rest = set(), set(), []
        for p in self.spec.patterns:
            if p.include is None:
                continue
            text = p.pattern.rstrip()  # git ignores trailing blanks; leading ones are part of the name
            bare = text[:-1] if text.endswith("/") else text
            if bare and not any(c in bare for c in "*?[\\/!#"):
                (dir_names if text.endswith("/") else names).add(bare)
            else:
                rest.append(p)
        rest_layer = _Layer(self.base, pathspec.GitIgnoreSpec(rest)) if rest else None
        return frozenset(names), frozenset(dir_names), rest_layer

    def without_patterns_matching(self, abs_dir: str) -> "_Layer":
        """The layer minus the patterns that exclude `abs_dir` (or a parent of it): for explicit roots."""
        rel = _relative(abs_dir, self.base)
        if not rel:
            return self
        kept = [p for p in self.spec.patterns if p.include is not True or p.match_file(rel + "/") is None]
        if len(kept) == len(self.spec.patterns):
            return self
        return _Layer(self.base, pathspec.GitIgnoreSpec(kept))


_REAL_PATHS: dict[str, str] = {}


def real_path(path: str) -> str:
    """`os.path.realpath`, remembered until `forget_real_paths`: a run asks it of every file a dozen
    times (the index, the survey, the cache). Each answer is an lstat per path component, so a path
    that is no link itself is its folder's real path (remembered too) and its name: one lstat a file
    (a warm run over 655 files: 7,905 lstat calls -> about 1,400)."""
    try:
        return _REAL_PATHS[path]
    except KeyError:
        pass
    head, tail = os.path.split(path)
    if head and tail and tail not in (".", "..") and not os.path.islink(path):
        found = os.path.join(real_path(head), tail)
    else:
        found = os.path.realpath(path)
    _REAL_PATHS[path] = found
    return found


def forget_real_paths() -> None:
    """Called where a run or an index build begins: links may have changed since the last."""
    _REAL_PATHS.clear()


def _relative(abs_path: str, base: str) -> str | None:
    """`abs_path` relative to `base` with `/` separators, or None if it is not inside `base`."""
    if abs_path == base:
        return ""
    prefix = base if base.endswith(os.sep) else base + os.sep
    if not abs_path.startswith(prefix):
        return None
    rel = abs_path[len(prefix):]
    return rel.replace(os.sep, "/") if os.sep != "/" else rel


def _is_inside(path: str, directory: str) -> bool:
    return _relative(path, directory) is not None


def _join(display_dir: str, name: str) -> str:
    """Display paths read like the user typed them: `src/a.py`, and `a.py` rather than `./a.py`."""
    return name if display_dir == os.curdir else os.path.join(display_dir, name)


def _spec(lines: Iterable[str]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _read_ignore_file(directory: str, name: str = ".gitignore") -> _Layer | None:
    try:
        with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as f:
            spec = _spec(f.read().splitlines())
    except OSError:
        return None
    return _Layer(directory, spec) if spec.patterns else None


def _work_tree_root(directory: str) -> str | None:
    """The nearest directory at or above `directory` holding a `.git` entry (dir or file)."""
    current = directory
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


class _IgnoreFiles:
    """Reads each ignore file at most once per run (pre-commit names hundreds of files)."""

    def __init__(self) -> None:
        self._layers: dict[str, _Layer | None] = {}
        self._ancestors: dict[str, list[_Layer]] = {}

    def own(self, directory: str) -> _Layer | None:
        if directory not in self._layers:
            self._layers[directory] = _read_ignore_file(directory)
        return self._layers[directory]

    def ancestors(self, directory: str) -> list[_Layer]:
        """Layers that apply to `directory` from above it (inside its work tree), outermost first."""
        if directory not in self._ancestors:
            self._ancestors[directory] = self._compute_ancestors(directory)
        return self._ancestors[directory]

    def _compute_ancestors(self, directory: str) -> list[_Layer]:
        top = _work_tree_root(directory)
        if top is None:
            return []  # not a git work tree: nothing above the given directories is read
        if directory == top:  # only .git/info/exclude is "above" the work tree root
            info = _read_ignore_file(os.path.join(top, ".git", "info"), "exclude")
            return [] if info is None else [_Layer(top, info.spec)]
        parent = os.path.dirname(directory)
        own = self.own(parent)
        return [*self.ancestors(parent), *([own] if own is not None else [])]


def _ignored_path(abs_path: str, is_dir: bool, layers: Sequence[_Layer]) -> bool:
    """Git's rule for any path: the deepest ignore file with a matching pattern decides."""
    for layer in reversed(layers):
        verdict = layer.check(abs_path, is_dir)
        if verdict is not None:
            return verdict
    return False


def _ignored(abs_path: str, name: str, is_dir: bool, layers: Sequence[_Layer]) -> bool:
    """Git's rule for a walk entry: the deepest ignore file with a matching pattern decides."""
    for layer in reversed(layers):
        verdict = layer.check_entry(abs_path, name, is_dir)
        if verdict is not None:
            return verdict
    return False


def is_environment(folder: str) -> bool:
    """`folder` is a Python environment: it holds one of ENVIRONMENT_MARKERS (a walk, which lists the
    folder anyway, reads them off its entries instead)."""
    return any(os.path.exists(os.path.join(folder, marker)) for marker in ENVIRONMENT_MARKERS)


def _in_environment(directory: str, base: str) -> bool:
    """`directory` or a folder above it, below `base`, is a Python environment: a walk from `base` would
    not enter it."""
    current = directory
    while current != base and _is_inside(current, base):
        if is_environment(current):
            return True
        current = os.path.dirname(current)
    return False


def exclude_layer(exclude: Sequence[str] | None, extend_exclude: Sequence[str], base: str) -> _Layer:
    patterns = list(DEFAULT_EXCLUDES if exclude is None else exclude) + list(extend_exclude)
    return _Layer(os.path.abspath(base), _spec(patterns))


def is_excluded(
    path: str,
    *,
    exclude: Sequence[str] | None = None,
    extend_exclude: Sequence[str] = (),
    base: str = ".",
    respect_gitignore: bool = True,
    _ignore_files: _IgnoreFiles | None = None,
) -> bool:
    """Whether a walk would leave `path` out (what `force_exclude` applies to named files)."""
    abs_path = os.path.abspath(path)
    is_dir = os.path.isdir(abs_path)
    layer = exclude_layer(exclude, extend_exclude, base)
    if not _is_inside(abs_path, layer.base):
        layer = _Layer(os.path.dirname(abs_path), layer.spec)
    if layer.check(abs_path, is_dir):  # a pattern matches the path or one of its parents
        return True
    if _in_environment(abs_path if is_dir else os.path.dirname(abs_path), layer.base):
        return True
    if respect_gitignore:
        ignore_files = _ignore_files or _IgnoreFiles()
        parent = os.path.dirname(abs_path)  # its own directory's .gitignore applies even outside git
        own = ignore_files.own(parent)
        return _ignored_path(abs_path, is_dir, [*ignore_files.ancestors(parent), *([own] if own else [])])
    return False


def discover(
    paths: Sequence[str],
    *,
    exclude: Sequence[str] | None = None,
    extend_exclude: Sequence[str] = (),
    base: str | None = None,
    respect_gitignore: bool = True,
    force_exclude: bool = False,
    extend_include: Sequence[str] = (),
) -> Discovered:
    """Expand `paths` into the Python files to process, sorted by path, each real file once."""
    base_abs = os.path.abspath(base if base is not None else os.getcwd())
    excl = exclude_layer(exclude, extend_exclude, base_abs)
    include = _Layer(base_abs, _spec(extend_include)) if extend_include else None
    out = Discovered()
    roots: list[tuple[str, str, str]] = []  # (display path, absolute path, real path)
    for p in paths:
        abs_p = os.path.abspath(p)
        if not os.path.exists(abs_p):
            reason = "broken symbolic link" if os.path.islink(abs_p) else "no such file or directory"
            out.errors.append((p, reason))
            continue
        roots.append((os.path.normpath(p), abs_p, os.path.realpath(abs_p)))
    allowed = [real for _, _, real in roots]

    found: dict[str, tuple[bool, str]] = {}  # real path -> (reached through a link, display path)
    ignore_files = _IgnoreFiles()

    def add(real: str, display: str, via_link: bool) -> None:
        old = found.get(real)
        if old is None or (old[0] and not via_link) or (old[0] == via_link and display < old[1]):
            found[real] = (via_link, display)

    for display, abs_p, real in roots:
        if not os.path.isdir(abs_p):
            if not os.path.isfile(abs_p):  # a FIFO or device would block or never end: never open it
                out.errors.append((display, "not a regular file"))
                continue
            if force_exclude and is_excluded(
                abs_p,
                exclude=exclude,
                extend_exclude=extend_exclude,
                base=base_abs,
                respect_gitignore=respect_gitignore,
                _ignore_files=ignore_files,
            ):
                continue
            add(real, display, abs_p != real)
            continue
        layer = excl if _is_inside(abs_p, base_abs) else _Layer(abs_p, excl.spec)
        if force_exclude and (layer.check(abs_p, True) or _in_environment(abs_p, layer.base)):
            continue
        layer = layer.without_patterns_matching(abs_p)
        layers = []
        if respect_gitignore:
            above = ignore_files.ancestors(abs_p)
            if force_exclude and _ignored_path(abs_p, True, above):
                continue
            layers = [lay.without_patterns_matching(abs_p) for lay in above]
        _walk(abs_p, real, display, layer, layers, ignore_files if respect_gitignore else None, allowed, add, out.errors,
              include if include is None or _is_inside(abs_p, base_abs) else _Layer(abs_p, include.spec))

    out.files = sorted(display for _, display in found.values())
    out.errors.sort()
    return out


def _walk(
    root_abs: str,
    root_real: str,
    root_display: str,
    excl: _Layer,
    layers: list[_Layer],
    ignore_files: _IgnoreFiles | None,
    allowed: list[str],
    add: Callable[[str, str, bool], None],
    errors: list[tuple[str, str]],
    include: _Layer | None = None,
) -> None:
    """Walk one root with os.scandir; each directory carries the ignore layers that apply to it."""
    stack = [(root_abs, root_real, root_display, list(layers))]
    while stack:
        abs_dir, real_dir, display_dir, dir_layers = stack.pop()
        if ignore_files is not None:
            own = ignore_files.own(abs_dir)
            if own is not None:
                dir_layers = dir_layers + [own]
        try:
            with os.scandir(abs_dir) as it:
                entries = list(it)
        except OSError as e:
            errors.append((display_dir, f"cannot read directory: {e.strerror or e}"))
            continue
        if abs_dir != root_abs and any(entry.name in ENVIRONMENT_MARKERS for entry in entries):
            continue  # a Python environment: installed packages, not the project's code
        for entry in entries:
            name = entry.name
            try:
                is_link = entry.is_symlink()
                if entry.is_dir(follow_symlinks=False):
                    entry_abs = os.path.join(abs_dir, name)
                    if excl.check_entry(entry_abs, name, True) or _ignored(entry_abs, name, True, dir_layers):
                        continue
                    stack.append((entry_abs, os.path.join(real_dir, name), _join(display_dir, name), dir_layers))
                    continue
                if not (name.endswith(PYTHON_SUFFIXES) or include is not None
                        and include.check_entry(os.path.join(abs_dir, name), name, False)) \
                        or not entry.is_file(follow_symlinks=True):
                    continue
            except OSError:
                continue
            entry_abs = os.path.join(abs_dir, name)
            if excl.check_entry(entry_abs, name, False) or _ignored(entry_abs, name, False, dir_layers):
                continue
            if is_link:
                real = os.path.realpath(entry_abs)
                if os.path.isdir(real) or not any(real == a or _is_inside(real, a) for a in allowed):
                    continue  # never escape the given roots
            else:
                real = os.path.join(real_dir, name)
            add(real, _join(display_dir, name), is_link)
