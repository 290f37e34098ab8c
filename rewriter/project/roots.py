"""Where a project's root is: the folder its index reads, and where its own copies of libraries live."""
from __future__ import annotations

import os

# What marks a project's root: a repository or a pyproject (STRONG), else the nearest folder that declares
# how to install or run the project (a "Download ZIP" copy keeps its requirements, not its `.git`).
STRONG_ROOT_MARKERS = ("pyproject.toml", ".git", ".hg")
WEAK_ROOT_MARKERS = ("setup.py", "setup.cfg", "requirements.txt", "environment.yml", "environment.yaml", "Pipfile")


def project_root(start: str, markers: dict[str, tuple[bool, bool]] | None = None) -> str:
    """The nearest directory at or above `start` holding a `pyproject.toml` or a version-control root.
    Without one: the outermost of the folders, one inside the next, that each hold a setup script or a
    requirements file, beginning at the nearest (`repo/requirements.txt` above `repo/sim/requirements.txt`:
    `repo`); else `start`'s folder. `markers`: what was found in each folder already (`_markers`), for
    a caller that asks of many folders under the same parents."""
    first = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    weak = None
    current = first
    while True:
        strong, weakly = _markers(current, markers)
        if strong:
            return current
        if weakly:
            if weak is None or os.path.dirname(weak) == current:
                weak = current
        parent = os.path.dirname(current)
        if parent == current:
            return weak or first
        current = parent


def _markers(folder: str, seen: dict[str, tuple[bool, bool]] | None) -> tuple[bool, bool]:
    """Whether `folder` holds a strong root marker, and a weak one (looked up in `seen`, and kept there)."""
    found = seen.get(folder) if seen is not None else None
    if found is None:
        found = (any(os.path.exists(os.path.join(folder, marker)) for marker in STRONG_ROOT_MARKERS),
                 any(os.path.exists(os.path.join(folder, marker)) for marker in WEAK_ROOT_MARKERS))
        if seen is not None:
            seen[folder] = found
    return found
