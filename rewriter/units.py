"""Units: the module-level names a rewrite can change and verify can record.

A unit is a module-level function or class method (`step`, `Model.forward`) or a plain module-level
assignment (`g = jit(vmap(f))`). Module-level code that binds no name belongs to `<module>`: it is
checked through the program's behaviour only. Verify compares units between two versions of a file,
records the changed ones, and `--in-place --verify` applies unsafe fixes unit by unit.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .runtime import defined_names

MODULE = "<module>"


@dataclass(frozen=True)
class Unit:
    """A module-level function, method, class or assignment, compared by its AST: what verify records."""
    name: str
    first_line: int
    last_line: int
    dump: str  # the unit's AST without positions: equal dumps mean equal code
    kind: str = "function"  # function | method | assignment | class | module

    @property
    def callable(self) -> bool:
        """Functions, methods and assignments can be recorded; classes and loose code cannot."""
        return self.kind in ("function", "method", "assignment")


def units(source: str | bytes) -> dict[str, Unit]:
    """Every unit of a module; statements that bind no name are collected under `<module>`. Code in
    a newer Python's grammar than this interpreter reads (rewriter/newer_syntax.py) is one unit: it
    cannot run here, so finer units would not be checked anyway."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        text = source.decode(errors="replace") if isinstance(source, bytes) else source
        return {MODULE: Unit(MODULE, 1, max(1, text.count("\n")), text, "module")}
    out: dict[str, Unit] = {}
    loose: list[str] = []
    for stmt in tree.body:
        names = defined_names(stmt)
        if isinstance(stmt, ast.ClassDef):
            rest = []
            for inner in stmt.body:
                inner_names = defined_names(inner) if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
                for name in inner_names:
                    _add(out, f"{stmt.name}.{name}", inner, "method")
                if not inner_names:
                    rest.append(ast.dump(inner))
            out[stmt.name] = Unit(stmt.name, _first(stmt), stmt.end_lineno, "\n".join(rest) + ast.dump(ast.ClassDef(
                stmt.name, stmt.bases, stmt.keywords, [], stmt.decorator_list)), "class")
            continue
        for name in names:
            _add(out, name, stmt, "function" if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) else "assignment")
        if not names:
            loose.append(ast.dump(stmt))
    out[MODULE] = Unit(MODULE, 1, len(tree.body) and tree.body[-1].end_lineno or 1, "\n".join(loose), "module")
    return out


def _first(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", [])
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def _add(out: dict[str, Unit], name: str, stmt: ast.stmt, kind: str) -> None:
    dump = ast.dump(stmt)
    if name in out:  # bound twice (e.g. a def and a later reassignment): one unit, all of its code
        previous = out[name]
        out[name] = Unit(name, previous.first_line, stmt.end_lineno, previous.dump + "\n" + dump, previous.kind)
    else:
        out[name] = Unit(name, _first(stmt), stmt.end_lineno, dump, kind)


def changed_units(old: str | bytes, new: str | bytes) -> list[Unit]:
    """Units whose code differs between two versions of a module (in both, or only in the old one).

    Units only in the new version (a hoisted `step_jit = jit(step)`) are not compared: the units
    that use them are changed, and those are what the program calls.
    """
    before, after = units(old), units(new)
    return [unit for name, unit in before.items() if name not in after or after[name].dump != unit.dump]


def unit_at(source: str | bytes | dict[str, Unit], line: int) -> str:
    """The innermost unit containing a line: a method over its class, a def over `<module>`."""
    best = MODULE
    span = None
    table = source if isinstance(source, dict) else units(source)
    for unit in table.values():
        if unit.name != MODULE and unit.first_line <= line <= unit.last_line:
            size = unit.last_line - unit.first_line
            if span is None or size < span:
                best, span = unit.name, size
    return best
