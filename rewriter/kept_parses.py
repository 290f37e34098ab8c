"""CPython's parses of the files a rule may fire in, kept from their survey for their processing.

The survey (rewriter/survey.py) parses every file for its summary and pre-filter; the few files some
rule may fire in are then processed, whose rules on `ast` read the same tree. Processed in the same
process (one job, or the worker that surveyed it: rewriter/workers.py), a file takes its tree from
here instead of parsing it again. Keyed by the bytes parsed: a file changed since is parsed anew.
Nothing reading a survey's tree changes it. Bounded: a parse takes many times its source's bytes
in memory (docs/benchmarks.md), so past `BUDGET` bytes of source the rest are parsed again.
"""
from __future__ import annotations

import ast

BUDGET = 4 << 20  # bytes of source kept, per process

_kept: dict[bytes, ast.Module] = {}
_held = 0
_keeping = True  # (`stop_keeping`)


def keep(source: bytes, tree: ast.Module) -> None:
    """Keep `tree`, CPython's parse of `source`, for `take`, unless the budget is spent."""
    global _held
    if not _keeping or source in _kept or _held + len(source) > BUDGET:
        return
    _kept[source] = tree
    _held += len(source)


def take(source: bytes) -> ast.Module | None:
    """The kept parse of `source`, no longer kept (None: none was)."""
    global _held
    tree = _kept.pop(source, None)
    if tree is not None:
        _held -= len(source)
    return tree


def stop_keeping() -> None:
    """Keep nothing more in this process until `clear`: a run's parent whose files other processes will
    process (workers.Workers: where libcst parses, only the forked workers process files)."""
    global _keeping
    _keeping = False


def clear() -> None:
    """Forget every kept parse, and keep again (a run's end: what no file took is garbage)."""
    global _held, _keeping
    _kept.clear()
    _held = 0
    _keeping = True
