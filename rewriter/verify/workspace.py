"""Two temporary mirrors of the current directory: the original, and the rewritten tree.

Commands run inside a mirror exactly as the user would run them in the current directory, so
relative paths, data files and imports resolve the same way; only files under PATH differ between
the two. Version control, virtual environments and caches are not copied.
"""
from __future__ import annotations

import ast
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import runtime
from ..files import is_environment
from .. import units as _units

IGNORED_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules", ".tox", ".nox",
                ".mypy_cache", ".pytest_cache", ".ruff_cache", ".phiml-rewrite-cache", ".ipynb_checkpoints", "build", "dist"}
MAX_FILES, MAX_BYTES = 50_000, 2 * 1024**3
RUNTIME_MODULE = "_phiml_rewrite_verify"
PYTEST_PLUGIN = "_phiml_rewrite_pytest"
NOTEBOOK_RUNNER = "_phiml_rewrite_notebook"  # python -m _phiml_rewrite_notebook NB (verify/notebook_runner.py)


class WorkspaceError(Exception):
    """The trees cannot be prepared (too large, PATH outside the current directory...)."""


@dataclass
class ChangedFile:
    """One file the rewrite changed: which of its units verify can record, and which only the program checks."""
    rel: str  # relative to the mirrored directory
    units: list[str]  # changed units that can be recorded (functions, methods, assignments)
    program_level: list[str]  # changed classes and loose module code: checked through the program only
    frameworks: set[str]


@dataclass
class Workspace:
    """A temporary directory holding the original and rewritten trees that verify runs side by side."""
    real_root: Path
    root: Path  # the temporary directory holding both trees and the bootstrap
    changed: list[ChangedFile] = field(default_factory=list)

    @property
    def original(self) -> Path:
        return self.root / "original"

    @property
    def rewritten(self) -> Path:
        return self.root / "rewritten"

    @property
    def bootstrap(self) -> Path:
        return self.root / "bootstrap"

    @property
    def frameworks(self) -> set[str]:
        return set().union(*(c.frameworks for c in self.changed)) if self.changed else set()

    def instrument_map(self, version: str) -> dict[str, dict]:
        """The runtime's `instrument` config: both versions record the same units under the same ids."""
        tree = self.original if version == "original" else self.rewritten
        return {str(tree / c.rel): {"id": c.rel, "units": c.units} for c in self.changed if c.units}

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _ignored(directory: str, names: list[str]) -> set[str]:
    return {n for n in names if n in IGNORED_DIRS or n.endswith(".egg-info")
            or is_environment(os.path.join(directory, n))}


def _check_size(root: Path) -> None:
    files = size = 0
    for directory, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _ignored(directory, dirs)]
        files += len(names)
        size += sum(os.path.getsize(os.path.join(directory, n)) for n in names if os.path.isfile(os.path.join(directory, n)))
        if files > MAX_FILES or size > MAX_BYTES:
            raise WorkspaceError(
                f"the current directory {root} is too large to mirror ({files}+ files, {size // 2**20}+ MiB): "
                "run verify from your project's directory"
            )


def create(real_root: Path) -> Workspace:
    """Mirror `real_root` twice and install the runtime bootstrap next to the trees."""
    real_root = real_root.resolve()
    _check_size(real_root)
    ws = Workspace(real_root, Path(tempfile.mkdtemp(prefix="phiml-rewrite-verify-")))
    try:
        for tree in (ws.original, ws.rewritten):
            shutil.copytree(real_root, tree, ignore=_ignored, symlinks=True)
        install_bootstrap(ws.bootstrap)
    except BaseException:
        ws.cleanup()
        raise
    return ws


def install_bootstrap(directory: Path) -> None:
    """The runtime package and a `sitecustomize` that installs it: put `directory` first on PYTHONPATH."""
    directory.mkdir()
    here = Path(__file__).parent
    shutil.copytree(Path(runtime.__file__).parent, directory / RUNTIME_MODULE, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(here / "pytest_plugin.py", directory / f"{PYTEST_PLUGIN}.py")
    shutil.copyfile(here / "notebook_runner.py", directory / f"{NOTEBOOK_RUNNER}.py")
    (directory / "sitecustomize.py").write_text(f"import {RUNTIME_MODULE}\n{RUNTIME_MODULE}.install_from_env()\n")


def replace_rewritten(ws: Workspace, rewritten_root: Path, under: Path) -> None:
    """Compare mode: the files of an existing rewritten tree take the place of those under `under`."""
    rel_under = under.resolve().relative_to(ws.real_root)
    target = ws.rewritten / rel_under
    if rewritten_root.is_file():
        shutil.copyfile(rewritten_root, target)
        return
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(rewritten_root, target, ignore=_ignored, symlinks=True)


def compare_trees(ws: Workspace) -> None:
    """Fill `ws.changed`: the Python files and notebooks that differ, with their changed units."""
    ws.changed.clear()
    for directory, dirs, names in os.walk(ws.original):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith((".py", ".ipynb")):
                continue
            old_path = Path(directory) / name
            rel = old_path.relative_to(ws.original)
            new_path = ws.rewritten / rel
            old = old_path.read_bytes()
            new = new_path.read_bytes() if new_path.exists() else b""
            if old == new:
                continue
            try:
                if name.endswith(".ipynb"):  # units of the cells' code, as the rules see it
                    old, new = _notebook_code(old), _notebook_code(new)
                changed = _units.changed_units(old, new)
            except (SyntaxError, ValueError) as e:
                raise WorkspaceError(f"{rel}: cannot compare the two versions: {e}") from None
            ws.changed.append(ChangedFile(
                str(rel), [u.name for u in changed if u.callable], [u.name for u in changed if not u.callable],
                frameworks_of(old) | frameworks_of(new),
            ))


def _notebook_code(source: bytes) -> str:
    from ..notebooks import NotebookError, module_of

    try:
        return module_of(source)[0]
    except NotebookError as e:
        raise ValueError(str(e)) from None


def frameworks_of(source: bytes | str) -> set[str]:
    """Which frameworks a module imports: `phiml` (PhiML or PhiFlow), `jax`, `torch`, `tensorflow`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    found = set()
    for node in ast.walk(tree):
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        for module in modules:
            top = module.split(".")[0]
            if top in ("phiml", "phi"):
                found.add("phiml")
            elif top in ("jax", "torch", "tensorflow"):
                found.add(top)
    return found
