"""Readings of source: two readings of the same source compared over trees (libcst's and `ast`'s:
tests/test_locator.py), and readings recorded as expectations: what a reading on CPython's `ast` says of each case and of
each file of a tree (tests/test_ast_scopes.py, test_ast_resolver.py, test_ast_jit.py), one line each, in
tests/data/readings/<name>.txt, a section per case or file (`== <case or path>`).

The recordings were made when the libcst twins of these readings were deleted (issue 45), from the `ast`
readings as they were then, which answered what libcst's did on every case recorded (the tests compared
the two trees, answer by answer, until then). After a reviewed change of a reading,

    python -m tests.test_ast_scopes --record

(or test_ast_resolver, test_ast_jit) writes its file again, and `git diff tests/data/readings/` is the
review. `python -m tests.test_ast_scopes PATH...` prints the reading of other files.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Callable, Iterable

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "tests" / "data" / "readings"


def sources(paths: Iterable[str | Path]):
    """(path, source) of every `.py` file under `paths` CPython reads (the golden expectations too)."""
    for root in paths:
        root = Path(root)
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            try:
                source = path.read_bytes().decode("utf-8")
                ast.parse(source)
            except (UnicodeDecodeError, SyntaxError, ValueError):
                continue  # not a file CPython reads: nothing to read
            yield path, source


def golden_and_examples() -> list[tuple[str, str]]:
    """(path relative to the project, source) of the golden cases and the examples."""
    return [(str(path.relative_to(ROOT)), source) for path, source in sources([ROOT / "golden", ROOT / "examples"])]


def read_all(cases: Iterable[tuple[str, str]], reading: Callable[[str], list[str]]) -> dict[str, list[str]]:
    return {name: reading(source) for name, source in cases}


def recorded(name: str) -> dict[str, list[str]]:
    """The sections of tests/data/readings/<name>.txt: case or path -> its lines."""
    out: dict[str, list[str]] = {}
    lines: list[str] = []
    for line in (RECORDED / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("== "):
            lines = out.setdefault(line[3:], [])
        else:
            lines.append(line)
    return out


def write(name: str, sections: dict[str, list[str]]) -> None:
    RECORDED.mkdir(parents=True, exist_ok=True)
    text = "".join(f"== {key}\n" + "".join(f"{line}\n" for line in lines) for key, lines in sections.items())
    (RECORDED / f"{name}.txt").write_text(text, encoding="utf-8")
    print(f"wrote {RECORDED / name}.txt: {len(sections)} sections, {sum(map(len, sections.values()))} lines")


def check(name: str, found: dict[str, list[str]], module: str, only: list[str] | None = None) -> None:
    """`found` is the recording `name` (its sections `only`, when given); `module`: the test module whose
    `--record` writes it again, for the assertion's message."""
    expected = recorded(name)
    if only is not None:
        expected = {key: expected[key] for key in only}
    assert found == expected, first_difference(found, expected, module)


def first_difference(found: dict[str, list[str]], expected: dict[str, list[str]], module: str) -> str:
    """Where `found` first differs from the recording, for an assertion's message."""
    how = f" (after a reviewed change: `python -m {module} --record`)"
    if found.keys() != expected.keys():
        return f"sections differ: found only {sorted(found.keys() - expected.keys())[:3]}, " \
               f"recorded only {sorted(expected.keys() - found.keys())[:3]}" + how
    for key in found:
        a, b = found[key], expected[key]
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return f"{key}, line {i + 1}:\n  recorded: {y}\n  found:    {x}" + how
        if len(a) != len(b):
            return f"{key}: {len(a)} lines found, {len(b)} recorded" + how
    return "the same"


def main(module: str, recordings: dict[str, Callable[[], dict[str, list[str]]]],
         reading: Callable[[str], list[str]]) -> int:
    """`--record`: write every recording again; else print the reading of the files under the arguments."""
    if sys.argv[1:] == ["--record"]:
        for name, read in recordings.items():
            write(name, read())
        return 0
    for path, source in sources(sys.argv[1:]):
        print(f"== {path}", *reading(source), sep="\n")
    return 0


# -- two readings compared --------------------------------------------------------------------------
def both_read(paths: list[str]):
    """(path, source) of every file under `paths` that both parsers read."""
    import libcst as cst

    for path, source in sources(paths):
        try:
            cst.parse_module(source)
        except Exception:  # noqa: BLE001 - not a file both read: nothing to compare
            continue
        yield path, source


def golden_differences(differences: Callable[[str], list[str]]) -> dict[str, list[str]]:
    """The golden cases and examples whose readings differ, each with its first differences."""
    return {str(path.relative_to(ROOT)): diff[:3]
            for path, source in both_read([str(ROOT / "golden"), str(ROOT / "examples")]) if (diff := differences(source))}


def compare_over(paths: list[str], differences: Callable[[str], list[str]]) -> int:
    """Print each file whose readings differ (and how); 1 when some does."""
    files = differing = 0
    for path, source in both_read(paths):
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
