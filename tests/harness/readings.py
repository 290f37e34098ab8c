"""Run a comparison of two readings of the same source (libcst's and `ast`'s: tests/test_ast_scopes.py,
tests/test_ast_resolver.py) over the files of real-code trees, printing every file where they differ."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Callable

import libcst as cst


def sources(paths: list[str]):
    """(path, source) of every file under `paths` that both parsers read."""
    for root in paths:
        for path in sorted(Path(root).rglob("*.py")) if Path(root).is_dir() else [Path(root)]:
            try:
                source = path.read_bytes().decode("utf-8")
                ast.parse(source)
                cst.parse_module(source)
            except Exception:  # noqa: BLE001 - not a file both read: nothing to compare
                continue
            yield path, source


def golden_differences(differences: Callable[[str], list[str]]) -> dict[str, list[str]]:
    """The golden cases and examples whose readings differ, each with its first differences."""
    root = Path(__file__).resolve().parents[2]
    return {str(path.relative_to(root)): diff[:3]
            for path, source in sources([str(root / "golden"), str(root / "examples")]) if (diff := differences(source))}


def compare_over(paths: list[str], differences: Callable[[str], list[str]]) -> int:
    """Print each file whose readings differ (and how); 1 when some does."""
    files = differing = 0
    for path, source in sources(paths):
        files += 1
        try:
            found = differences(source)
        except RecursionError:
            continue  # too deep for either walk: neither reads it
        if found:
            differing += 1
            print(path)
            for line in found[:6]:
                print("   ", line)
    print(f"{files} files, {differing} differ")
    return 1 if differing else 0
