"""One `ast` parse of each file per run, for the two things a run first needs of every file.

The project index needs each module's summary (rewriter/project/summary.py) before any file can be
analysed, and the pre-filter needs each file's syntax to decide which rules may fire in it
(rewriter/prefilter.py). Both read the same tree: parsed once here, in the runner's worker
processes, instead of once for the index in the main process and once more for the pre-filter in a
worker. The rules let through are judged without the facts of other modules; a file that turns out
to have such facts is judged again with them (engine._candidates), exactly as before.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .codemod import Codemod
from .engine import wanted_codemods
from .notebooks import is_notebook
from .prefilter import filter_codemods, parse
from .project.index import summarize_file
from .project.summary import Summary


@dataclass(frozen=True)
class Survey:
    summary: Summary | None
    # Codes of the rules whose pre-filters the file passes (None: not asked, or not a .py file ast reads).
    first_pass: tuple[str, ...] | None = None


def survey(job: tuple[str, bytes, Sequence[type[Codemod]] | None]) -> Survey:
    """The summary of the file, and (when `codemods` is given) the rules among them its bytes and
    syntax let through. A module-level function: the process pool pickles it."""
    path, source, codemods = job
    tree = parse(source) if not is_notebook(path) and b"\x00" not in source else None
    summary = summarize_file(path, source, tree)
    if codemods is None or tree is None:
        return Survey(summary)
    wanted = wanted_codemods(source, codemods)
    passed = filter_codemods(source, wanted, None, tree) if wanted else []
    return Survey(summary, tuple(c.CODE for c in passed))
