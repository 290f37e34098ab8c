"""Every rule, in the order they run; selection by code, code prefix or name.

Selecting rules needs only their codes and names, which `rule_index.py` lists (generated from the
rules by `python -m rewriter.registry`, checked by tests/test_rules.py): a run whose results all come
from the cache, and `phiml-rewrite rules`, never import the rules, nor libcst, which they are built on.
"""
from __future__ import annotations

import importlib
import pkgutil
import sys
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, NamedTuple

from .rule_index import RULES

if TYPE_CHECKING:
    from .codemod import Codemod


@lru_cache(maxsize=None)
def all_codemods() -> tuple[type[Codemod], ...]:
    """Each module in `codemods/` defines one rule (a Codemod, decided on libcst, or an AstRule); sorted by code."""
    import codemods

    from .ast_rule import AstRule
    from .codemod import Codemod
    from .rule import Rule

    found: list = []
    for info in pkgutil.iter_modules(codemods.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"codemods.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value not in (Rule, Codemod, AstRule) and value.__module__ == module.__name__:
                found.append(value)
    return tuple(sorted(found, key=lambda c: c.CODE))


class Rule(NamedTuple):
    """What `phiml-rewrite rules` shows of a rule, and what selecting it needs."""

    code: str
    name: str
    safety: str  # Codemod.safety_label()
    severity: str
    summary: str


def rule_index() -> tuple[Rule, ...]:
    """Every rule, in code order, without importing any."""
    return tuple(Rule(*entry) for entry in RULES)


class UnknownRule(ValueError):
    pass


def _matches(code: str, name: str, selector: str) -> bool:
    s = selector.strip()
    return name == s.lower() or code.startswith(s.upper()) or s.upper() == "ALL"


def check_selectors(selectors: Iterable[str]) -> None:
    for s in selectors:
        if not any(_matches(rule.code, rule.name, s) for rule in rule_index()):
            raise UnknownRule(f"unknown rule {s!r} (see `phiml-rewrite rules`)")


def select_codes(select: Iterable[str] | None = None, ignore: Iterable[str] = ()) -> tuple[str, ...]:
    """Codes (`PML301`), prefixes (`PML3`, `PML`) or names (`vmap-of-jit`); ignore wins over select.
    `None` selects every rule; an empty selection selects none (as in ruff)."""
    select = ["ALL"] if select is None else list(select)
    ignore = list(ignore)
    check_selectors(select + ignore)
    return tuple(rule.code for rule in rule_index()
                 if any(_matches(rule.code, rule.name, s) for s in select) and not any(_matches(rule.code, rule.name, s) for s in ignore))


def select(select: Iterable[str] | None = None, ignore: Iterable[str] = ()) -> tuple[type[Codemod], ...]:
    """The rules `select_codes` selects (this imports them)."""
    codes = set(select_codes(select, ignore))
    return tuple(c for c in all_codemods() if c.CODE in codes)


def by_code(code_or_name: str) -> type[Codemod]:
    for c in all_codemods():
        if c.CODE == code_or_name.upper() or c.NAME == code_or_name.lower():
            return c
    raise UnknownRule(f"unknown rule {code_or_name!r} (see `phiml-rewrite rules`)")


def index_source() -> str:
    """The text of rule_index.py for the rules of `codemods/`."""
    lines = ['"""Every rule\'s code, name, fix safety, severity and summary (registry.Rule): for selecting and',
             "listing rules without importing them.", "",
             "Generated from the rules in codemods/ by `python -m rewriter.registry`; tests/test_rules.py checks it.",
             '"""', "", "RULES = ("]
    lines += [f"    ({c.CODE!r}, {c.NAME!r}, {c.safety_label()!r}, {c.SEVERITY.value!r}, {c.SUMMARY!r}),"
              for c in all_codemods()]
    lines.append(")")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    from pathlib import Path

    target = Path(__file__).with_name("rule_index.py")
    target.write_text(index_source())
    print(f"wrote {target} ({len(all_codemods())} rules)", file=sys.stderr)
