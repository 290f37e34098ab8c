"""Every codemod, in the order they run; selection by code, code prefix or name."""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import Iterable

import codemods

from .codemod import Codemod


@lru_cache(maxsize=None)
def all_codemods() -> tuple[type[Codemod], ...]:
    """Each module in `codemods/` defines one Codemod subclass; sorted by code."""
    found = []
    for info in pkgutil.iter_modules(codemods.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"codemods.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Codemod) and value is not Codemod and value.__module__ == module.__name__:
                found.append(value)
    return tuple(sorted(found, key=lambda c: c.CODE))


class UnknownRule(ValueError):
    pass


def _matches(codemod: type[Codemod], selector: str) -> bool:
    s = selector.strip()
    return codemod.NAME == s.lower() or codemod.CODE.startswith(s.upper()) or s.upper() == "ALL"


def check_selectors(selectors: Iterable[str]) -> None:
    for s in selectors:
        if not any(_matches(c, s) for c in all_codemods()):
            raise UnknownRule(f"unknown rule {s!r} (see `phiml-rewrite rules`)")


def select(select: Iterable[str] | None = None, ignore: Iterable[str] = ()) -> tuple[type[Codemod], ...]:
    """Codes (`PML301`), prefixes (`PML3`, `PML`) or names (`vmap-of-jit`); ignore wins over select.
    `None` selects every rule; an empty selection selects none (as in ruff)."""
    select = ["ALL"] if select is None else list(select)
    ignore = list(ignore)
    check_selectors(select + ignore)
    return tuple(
        c for c in all_codemods() if any(_matches(c, s) for s in select) and not any(_matches(c, s) for s in ignore)
    )


def by_code(code_or_name: str) -> type[Codemod]:
    for c in all_codemods():
        if c.CODE == code_or_name.upper() or c.NAME == code_or_name.lower():
            return c
    raise UnknownRule(f"unknown rule {code_or_name!r} (see `phiml-rewrite rules`)")
