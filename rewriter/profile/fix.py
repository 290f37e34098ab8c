"""`profile --fix`: what the runs showed, handed to the rewriter as evidence for PML401.

Only functions whose keys never came back get evidence (report.FunctionProfile.forget_fix): for
them PML401 adds `forget_traces=True` to the decorator. Everything else has a cause a rewrite of the
decorator cannot remove; the profile names the rule or the stable key that does.
"""
from __future__ import annotations

import os

from .. import runner
from ..config import Config
from ..engine import Settings
from ..findings import FileResult
from ..project.world import World, file_package
from ..notebooks import LineMap, NotebookError, is_notebook, module_of
from .report import FunctionProfile

RULE = "PML401"


def evidence(functions: list[FunctionProfile], root: str) -> tuple[tuple[str, int, str], ...]:
    """(real path, def line, what was seen) for every function the profile says to bound."""
    out = []
    for f in functions:
        if f.forget_fix:
            seen = f"{f.traces} traces in {f.calls} calls on {', '.join(f.backends)}, no key reused; {f.reason}"
            path, line = _in_module(os.path.join(root, f.file), f.line)
            if line is not None:
                out.append((path, line, seen))
    return tuple(out)


def _in_module(file: str, line: int) -> tuple[str, int | None]:
    """(real path, line) of a profiled def in the module the rules analyse: a notebook's cell
    ("nb.ipynb:cell 3") is a place in its cells joined (rewriter/notebooks); None: not found."""
    path, sep, cell = file.rpartition(":cell ")
    if not sep or not is_notebook(path) or not cell.isdigit():
        return os.path.realpath(file), line
    try:
        with open(path, "rb") as f:
            source, _ = module_of(f.read())
    except (OSError, NotebookError):
        return os.path.realpath(path), None
    return os.path.realpath(path), LineMap(source).line_of(int(cell), line)


def apply(functions: list[FunctionProfile], config: Config, root: str) -> list[FileResult]:
    """Rewrite (in place) the files of the functions to bound; returns what happened per file."""
    found = evidence(functions, root)
    paths = sorted({path for path, _, _ in found})

    index = runner.project_index(config, paths) if paths else None  # factories of other modules count (PML401)

    def settings(path: str) -> Settings:
        codemods = tuple(c for c in config.codemods_for(path) if c.CODE == RULE)
        return Settings(codemods=codemods, runtime_evidence=found, ast_prefilter=False,
                        project=runner.project_facts(index, path), world=World(package=file_package(path)))

    results = runner.process_files(paths, settings)
    for result in results:
        runner.write_result(result)
    return runner.conclude(results, written=True).results
