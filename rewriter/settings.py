"""How one file is processed: which rules, which fixes, what else is known about it.

Its own module, without libcst: the runner computes a file's cache key from these before anything
is parsed, and a warm run never imports the engine (rewriter/engine.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .analysis.facts import FileFacts
    from .codemod import Codemod


@dataclass(frozen=True)
class Settings:
    """All that one file's processing depends on, the project's facts included: a cached result is keyed by it."""
    codemods: tuple[type[Codemod], ...]
    unsafe_fixes: bool = False
    apply_fixes: bool = True  # False: report only, never compute the rewritten source
    ast_prefilter: bool = True  # skip files whose `ast` has no candidate (tests turn it off to check it)
    # Report findings at their places in the *original* file (dry runs, --check, CI annotations):
    # later fixpoint passes see rewritten code, so their positions would not match the file on disk.
    original_positions: bool = False
    # Compute the rewritten source. False (`--check`, output formats without a diff): one report pass
    # over the original, whose enabled fixes say whether the file would change; no fixpoint.
    rewrite: bool = True
    # `--in-place --verify`: unsafe fixes only inside these units (rewriter.units); no fix at all in
    # `withheld_units`, where running the rewrite showed a difference. None: no unit restriction.
    unsafe_units: frozenset[str] | None = None
    withheld_units: frozenset[str] = frozenset()
    # `--verify auto`: units where an abstract proof showed the merged branches agree in shape, dtype and
    # structure; there only the unsafe fixes whose sole doubt that was (`report(provable=True)`) are written.
    proven_units: frozenset[str] = frozenset()
    # `profile --fix`: what running the program showed, as (real path, line of a def, summary); rules
    # that act on run-time evidence (PML401) read the entries of their file.
    runtime_evidence: tuple[tuple[str, int, str], ...] = ()
    # What an analysis of the whole module found out about the parameters of its jitted functions
    # (TracedAnalysis.facts): the editor's provisional analysis of a slice, whose calls may be left
    # out of the slice, reads the roles from here instead of from the calls it can see.
    callsite_facts: tuple = ()
    # The module is a notebook's code cells joined (rewriter/notebooks): messages name lines by cell.
    cells: bool = False
    # Of those cells, the ones whose stored outputs hold an error: run to show it (analysis/testcode.py).
    error_cells: frozenset[int] = frozenset()
    # The module holds a notebook's IPython lines, masked, which are put back only where they come out of
    # the rewrite as they were (rewriter/notebooks/magics.py), and some of them a fix may move (inside a
    # compound statement, or continued over lines). A report pass (`rewrite` False) that plans a fix then
    # computes the rewrite, for its caller to tell: a fix of a later pass may move them too.
    masked_ipython: bool = False
    # What the project index found in the other modules about this one (rewriter/project): functions
    # they trace, calls they make of its jit functions, factories it imports. None: analysed alone.
    project: FileFacts | None = None
    # The user's world beyond the file (rewriter/project/world.py): the library versions its project runs,
    # and whether code outside the run may call its functions. None: nothing known (the installed versions
    # are assumed, and every caller is one the file or the index shows).
    world: object = None  # rewriter.project.world.World (not imported: the project layer sits above this one)
    # The rules the runner's survey of this file (rewriter/survey.py) let through, judged exactly as the
    # pre-filters here would judge the original: its one ast parse served the project index too.
    # None: judged here. Later fixpoint passes, on rewritten code, are always judged here.
    first_pass: tuple[str, ...] | None = None
    # With `first_pass`: what positions.py needs of the survey's parse (positions.statement_outline).
    outline: tuple | None = None
