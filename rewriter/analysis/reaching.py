"""Derive `_reaching.py`: the names that may reach an API of the table (apis.reaching_names), made once.

    python -m rewriter.analysis.reaching           # rewrite rewriter/analysis/_reaching.py
    python -m rewriter.analysis.reaching --check   # exit 1 if it differs from what the table and facts give

Making them canonicalizes every alias the installed packages bind (`_installed.py`), in every run that
surveys a file; stored, a run reads them instead (apis._reaching_names), where the digest of their
inputs (apis.reaching_inputs) is the one they were made from, and makes them where it is not.
Regenerate after `scan_installed` or a change of the table; tests/test_installed.py fails until then.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .apis import reaching_inputs, reaching_names
from .scan_installed import write_or_check

OUTPUT = Path(__file__).with_name("_reaching.py")


def render() -> str:
    """The contents of `_reaching.py`: the names without `functools.partial` (REACHING), and those only
    the table with it adds (WITH_PARTIAL: the names with it are a superset, made from more APIs by the
    same closure)."""
    def names(found: frozenset[str]) -> str:
        return "frozenset({\n" + "".join(f"    {name!r},\n" for name in sorted(found)) + "})\n"

    reaching, partial = reaching_names(False), reaching_names(True)
    if not reaching <= partial:
        raise AssertionError("the names with functools.partial no longer include those without it")
    return ('"""The names that may reach an API of the table (apis.reaching_names). GENERATED: do not edit.\n\n'
            'Regenerate with `python -m rewriter.analysis.reaching`; INPUTS is apis.reaching_inputs() they were\n'
            'made from (a run whose inputs differ makes them itself)."""\n'
            "# fmt: off\n\n"
            f"INPUTS = {reaching_inputs()!r}\n\n"
            f"REACHING = {names(reaching)}\n"
            f"WITH_PARTIAL = {names(partial - reaching)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rewriter.analysis.reaching", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 if the checked-in module differs")
    args = parser.parse_args(argv)
    return write_or_check(OUTPUT, render(), args.check, "the table and the installed facts")


if __name__ == "__main__":
    sys.exit(main())
