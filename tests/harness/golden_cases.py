"""Golden cases: `golden/<codemod-name>/<case>.py` with `<case>.expected.py` (absent: must not change).

A case declares what to check in a module-level literal, read without importing the file:

    GOLDEN = {
        "findings": ["PML302:14"],          # code:line of every finding in the original (fixed or not)
        "unsafe_fixes": False,              # apply unsafe fixes for this case
        "framework": "phiml",               # phiml: run on every backend below; jax: raw jax code
        "backends": ["numpy", "jax", "torch", "tensorflow"],   # where to execute (omit: not runnable)
        "entry": "golden_run",              # function returning the values to compare
        "traces": [5, 1],                   # PhiML traces before -> after, on every jitting backend,
                                            # or per backend: {"jax": [4, 1], "torch": [7, 1], ...}
        "cache": [6, 1],                    # the most traces one PhiML jit function held at once, before -> after
        "compiles": [5, 1],                 # jax compiles of the program's functions before -> after
        "original_broken": {"torch": "differs", "jax": "TracerIntegerConversionError"},
                                            # the bug the rewrite fixes: the original silently differs
                                            # from its eager result, or raises this exception type
    }
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

PHIML_BACKENDS = ("numpy", "jax", "torch", "tensorflow")


@dataclass(frozen=True)
class GoldenCase:
    codemod: str  # the directory name: a codemod's kebab-case name
    name: str
    path: Path
    spec: dict = field(hash=False)

    @property
    def id(self) -> str:
        return f"{self.codemod}/{self.name}"

    @property
    def expected_path(self) -> Path:
        return self.path.with_name(self.name + ".expected.py")

    @property
    def expected(self) -> bytes:
        """What the rewrite must produce: the expected file, or the input itself."""
        return (self.expected_path if self.expected_path.exists() else self.path).read_bytes()

    @property
    def backends(self) -> tuple[str, ...]:
        return tuple(self.spec.get("backends", ()))

    @property
    def framework(self) -> str:
        return self.spec.get("framework", "phiml")

    @property
    def entry(self) -> str:
        return self.spec.get("entry", "golden_run")


def read_spec(source: str) -> dict:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "GOLDEN" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


def discover(root: Path) -> list[GoldenCase]:
    cases = []
    for path in sorted(root.glob("*/*.py")):
        if path.name.endswith(".expected.py") or path.name.startswith("_"):
            continue
        cases.append(GoldenCase(path.parent.name, path.stem, path, read_spec(path.read_text())))
    return cases


def project_config(folder: Path, spec: dict, **changes):
    """A golden project's configuration: its own pyproject.toml's [tool.phiml-rewrite] table when it has one
    (the project's word on what it targets), with the harness's root, project and excludes."""
    from dataclasses import replace

    from rewriter.config import Config, from_file

    own = folder / "pyproject.toml"
    base = from_file(str(own)) if own.exists() else Config(root=str(folder))
    settings = dict(root=str(folder), project_root=str(folder), unsafe_fixes=bool(spec.get("unsafe_fixes")),
                    extend_exclude=("*.expected.py",))
    settings.update(changes)
    return replace(base, **settings)


def notebook_paths(directory: Path) -> list[Path]:
    """The golden notebooks (not their rewrites), in subfolders too: a case that needs files beside it (a
    copy of a library) has a folder of its own."""
    return sorted(p for p in directory.rglob("*.ipynb") if not p.name.endswith(".expected.ipynb"))


def notebook_spec(path: Path) -> dict:
    """A golden notebook's spec: its metadata's `phiml_rewrite_golden`, or `<name>.golden.json` beside a
    notebook that cannot hold one (an empty file)."""
    import json

    beside = path.with_name(path.stem + ".golden.json")
    if beside.exists():
        return json.loads(beside.read_text())
    return json.loads(path.read_text())["metadata"]["phiml_rewrite_golden"]


def notebook_settings(path: Path, spec: dict, directory: Path):
    """A golden notebook's settings: every rule, its spec's unsafe fixes, and its world (its own `%pip
    install` lines, a copy of a library beside it), read with the notebooks' folder as the project root."""
    from rewriter.engine import Settings
    from rewriter.project.world import WorldReader
    from rewriter.registry import all_codemods

    return Settings(all_codemods(), unsafe_fixes=bool(spec.get("unsafe_fixes")),
                    world=WorldReader()(str(path), root=str(directory)))
