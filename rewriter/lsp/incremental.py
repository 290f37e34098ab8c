"""Findings for an edited buffer in the time it takes to analyse the edited function, not the file.

Scope analysis over a whole module costs about a millisecond per line of dense jit code, too slow
to follow typing in a long file. Most edits fall inside one function: the previous exact findings
stay valid for the rest of the file (shifted by the lines the edit added or removed), and only that
function is analysed again, in a *slice* of the module:

- the edited function (a top-level def, or a method of a top-level class) verbatim;
- the functions it names and the functions that name it, verbatim (jit contexts and helpers are
  followed through calls);
- every other def and class as an *outline*: decorators and signature, with `...` as body, so
  module-level names, jit decorators and static arguments still resolve;
- every other top-level statement (imports, assignments, scripts) verbatim.

The result is provisional: the server follows it with an exact analysis of the whole buffer, which
replaces it (and is what quick fixes are computed from). Edits outside a function body, or that
change a signature or decorator, take the exact path directly.
"""
from __future__ import annotations

import ast
import io
from dataclasses import dataclass, replace
from functools import lru_cache

from ..findings import Finding, Related, Span

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Lines of neighbouring defs kept verbatim besides the edited one: fidelity for rules that follow
# calls (a helper of a jit function), bounded so that the slice stays small in well-connected code.
NEIGHBOUR_BUDGET = 30


@dataclass(frozen=True)
class Unit:
    """A def being edited: its lines (1-based, inclusive) and where its body starts."""

    path: tuple[int, ...]  # index in the module body, then in the class body for a method
    start: int  # first decorator line
    header_end: int  # the last line of the signature (a closing `):` may follow on the next)
    end: int
    name: str


@dataclass(frozen=True)
class Slice:
    """The part of a document an edit touched, cut out to be analysed alone, with its line mapping."""
    text: str
    lines: tuple[int, ...]  # the document line of each slice line (1-based; index 0 is slice line 1)
    unit_start: int  # the edited def's lines in the document
    unit_end: int

    def to_document(self, finding: Finding) -> Finding | None:
        """The finding at its place in the document, if it is the edited def's; else None."""
        s = finding.span
        line, end_line = self.lines[s.line - 1], self.lines[s.end_line - 1]
        if not (self.unit_start <= line and end_line <= self.unit_end):
            return None
        return replace(finding, span=Span(line, s.column, end_line, s.end_column),
                       related=_renumbered(finding.related, lambda n: self.lines[n - 1] if 0 < n <= len(self.lines) else n))


def lines_of(text: str) -> list[str]:
    return io.StringIO(text, newline="").readlines()


def changed_lines(old: list[str], new: list[str]) -> tuple[int, int, int]:
    """(first changed line, last changed line in old, last in new), 1-based; last < first for none."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head + 1, len(old) - tail, len(new) - tail


def edited_unit(tree: ast.Module, lines: list[str], first: int, last: int) -> Unit | None:
    """The def whose body holds lines first..last (an empty range: the place `first`).

    A def's region runs from after its signature to just before the next statement at its level,
    so the blank lines after its last statement (where new lines are typed) belong to it.
    """
    body = tree.body
    for i, stmt in enumerate(body):
        region_end = (_start(body[i + 1]) - 1) if i + 1 < len(body) else len(lines)
        if not (_start(stmt) <= first and max(first, last) <= region_end + (last < first)):
            continue
        if isinstance(stmt, ast.ClassDef):
            for j, inner in enumerate(stmt.body):
                inner_end = (_start(stmt.body[j + 1]) - 1) if j + 1 < len(stmt.body) else region_end
                if isinstance(inner, _DEFS):
                    unit = _unit((i, j), inner, lines, first, last, inner_end)
                    if unit is not None:
                        return unit
            return None
        if isinstance(stmt, _DEFS):
            return _unit((i,), stmt, lines, first, last, region_end)
        return None
    return None


def _unit(path, node, lines, first, last, region_end: int) -> Unit | None:
    if _body_start(node, lines) is None:
        return None
    header_end = _header_end(node)
    if header_end < first and max(first, last) <= region_end + (last < first):
        return Unit(path, _start(node), header_end, max(node.end_lineno, min(max(first, last), region_end)), node.name)
    return None


def _header_end(node) -> int:
    parts = [node.args, *([node.returns] if node.returns else [])]
    return max([node.lineno] + [n.end_lineno for part in parts for n in ast.walk(part) if getattr(n, "end_lineno", None)])


def header(lines: list[str], unit: Unit) -> str:
    """Decorators and signature: an edit that changes them takes the exact path."""
    return "".join(lines[unit.start - 1 : unit.header_end])


def build_slice(tree: ast.Module, lines: list[str], unit: Unit) -> Slice:
    """The module with `unit` and its neighbours verbatim and the other defs outlined.

    What is left out is left out entirely (blank lines cost the parser and the position pass as
    much as code): `Slice.lines` maps the slice's lines back to the document's.
    """
    target = _node_at(tree, unit.path)
    methods = list(tree.body[unit.path[0]].body) if len(unit.path) == 2 else []
    related = _related(list(tree.body) + methods, target, lines, methods)
    kept: dict[int, str] = {}

    def verbatim(node) -> None:
        for n in range(_start(node), node.end_lineno + 1):
            kept[n] = lines[n - 1]

    def keep_header(node) -> int | None:
        """Decorators and signature kept; the line the body starts on (None: kept whole, a one-liner)."""
        body_start = _body_start(node, lines)
        if body_start is None:
            verbatim(node)
            return None
        for n in range(_start(node), body_start):
            kept[n] = lines[n - 1]
        return body_start

    def outline(node) -> None:
        body_start = keep_header(node)
        if body_start is not None:
            first_body = lines[body_start - 1]
            kept[body_start] = first_body[: len(first_body) - len(first_body.lstrip())] + "...\n"

    named = _names_in(target)
    for stmt in tree.body:  # `step = jit_compile(_step)`: the def behind a module-level name it uses
        if not isinstance(stmt, (*_DEFS, ast.ClassDef)) and _bound_names(stmt) & named:
            named |= _names_in(stmt)

    # Globals a def reassigns (`global SCALE`), and the names they are read through: a per-call operator reads
    # them as they are at each call, a module-level one once (PML101's note), so the defs that reassign one
    # the edited def reads, itself or through a def it names, are kept whole, and so is such a def it names.
    # (each def walked once, and only in a document that spells `global` at all: this runs on every edit)
    declared = {id(stmt): {name for n in ast.walk(stmt) if isinstance(n, ast.Global) for name in n.names}
                for stmt in tree.body if isinstance(stmt, (*_DEFS, ast.ClassDef))} \
        if any("global" in line for line in lines) else {}
    reassigned: set[str] = set().union(*declared.values())
    read_through: set[str] = set()
    if reassigned:
        read_through = named & reassigned
        for stmt in tree.body:
            if isinstance(stmt, _DEFS) and stmt.name in named and not _names_in(stmt).isdisjoint(reassigned):
                read_through |= _names_in(stmt) & reassigned

    def elsewhere(node) -> None:
        """A def the edited one does not name: left out. One it names, or one that rebinds its name
        (which function `jax.jit(step)` reads depends on it): its outline. Whole, one that reassigns a global
        the edited one reads (itself or through a def it names), and a def it names that reads one."""
        if read_through and (not read_through.isdisjoint(declared.get(id(node), ()))
                             or node.name in named and not _names_in(node).isdisjoint(read_through)):
            verbatim(node)
        elif node.name in named or node.name == getattr(target, "name", None):
            outline(node)

    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.ClassDef) and len(unit.path) == 2 and unit.path[0] == i:
            if keep_header(stmt) is None:
                continue
            for inner in stmt.body:
                (outline if isinstance(inner, _DEFS) and inner is not target and inner not in related else verbatim)(inner)
        elif isinstance(stmt, (*_DEFS, ast.ClassDef)) and stmt is not target and stmt not in related:
            elsewhere(stmt)
        else:
            verbatim(stmt)
    numbers = tuple(sorted(kept))
    text = "".join(line if line.endswith(("\n", "\r")) else line + "\n" for line in (kept[n] for n in numbers))
    return Slice(text, numbers, unit.start, unit.end)


def _start(node) -> int:
    return min([d.lineno for d in getattr(node, "decorator_list", ())] + [node.lineno])


def _body_start(node, lines: list[str]) -> int | None:
    """The line the body starts on (its first statement's first decorator, if any), if the header
    ends on an earlier line (else None)."""
    first = node.body[0]
    start = _start(first)
    if start <= node.lineno:
        return None
    if start < first.lineno:  # a decorated def or class first: its line starts with `@`
        return start if lines[start - 1].lstrip().startswith("@") else None
    prefix = lines[first.lineno - 1].encode("utf-8")[: first.col_offset]
    return first.lineno if not prefix.strip() else None


def _node_at(tree: ast.Module, path: tuple[int, ...]):
    node = tree.body[path[0]]
    return node.body[path[1]] if len(path) == 2 else node


def _related(statements, target, lines: list[str], methods=()) -> set:
    """Defs and classes among `statements` kept verbatim with the target, within NEIGHBOUR_BUDGET lines.

    First defs that name the target and are decorated or pass it on (`jit_compile(target)`: a jit
    caller makes a helper's body traced), then those the target names, then sibling `methods`
    sharing an attribute with it, then plain callers, which matter least; nearest first in each.
    """
    named = _names_in(target)
    attributes = _attributes_in(target) if methods else set()
    # Names that denote the target too (`fast = jax.jit(step)`): a test calling `fast` under
    # `pytest.raises` or passing it to `assertRaises` decides what the rules may do to `step`.
    aliases = {target.name} | {name for stmt in statements if not isinstance(stmt, (*_DEFS, ast.ClassDef))
                               and target.name in _names_in(stmt) for name in _bound_names(stmt)}
    # A method its siblings call (`self.laplace(u)` in `step`), one of which another method hands to a
    # transform (`jax.jit(self.step)` in `__init__`): those two make the target's body traced.
    callers = {m.name for m in methods if isinstance(m, _DEFS) and m is not target and target.name in _attributes_in(m)}
    passers = {id(m) for m in methods if isinstance(m, _DEFS) and m is not target and any(_passes(m, c) for c in callers)}
    indirect = {d.name for d in statements if isinstance(d, _DEFS) and d is not target
                and target.name in "".join(lines[_start(d) - 1 : d.end_lineno]) and target.name in _names_in(d)}
    ranked = []
    for stmt in statements:
        if stmt is target or not isinstance(stmt, (*_DEFS, ast.ClassDef)):
            continue
        # The text decides cheaply for most statements whether the name can occur at all.
        text = "".join(lines[_start(stmt) - 1 : stmt.end_lineno])
        mentions = any(alias in text for alias in aliases) and bool(aliases & _names_in(stmt))
        if mentions and (stmt.decorator_list or _passes(stmt, target.name)) or id(stmt) in passers:
            rank = 0
        elif stmt in methods and stmt.name in callers and passers:
            rank = 1
        elif stmt.name in named:
            rank = 2 if stmt.decorator_list else 3
        elif stmt in methods and attributes & _attributes_in(stmt):
            rank = 4
        elif mentions:
            rank = 5  # a plain caller: whether the target is also called directly (PML502's safety)
        elif indirect and indirect & _names_in(stmt):
            rank = 6  # a caller's caller: `pytest.raises` around `run_helper(x)`, which calls the target
        else:
            continue
        ranked.append((rank, abs(stmt.lineno - target.lineno), stmt))
    out, used = set(), 0
    for _, _, stmt in sorted(ranked, key=lambda r: r[:2]):
        size = stmt.end_lineno - _start(stmt) + 1
        if used + size <= NEIGHBOUR_BUDGET:
            out.add(stmt)
            used += size
    return out


def _attributes_in(node) -> set[str]:
    """`x` of every `self.x`-like access: methods sharing state are analysed together."""
    return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}


def _passes(node, name: str) -> bool:
    """Whether `name` is used in `node` as a value (handed to a transform or stored), not only called."""
    called = {id(call.func) for call in ast.walk(node) if isinstance(call, ast.Call)}
    return any(
        id(n) not in called and (isinstance(n, ast.Name) and n.id == name or isinstance(n, ast.Attribute) and n.attr == name)
        for n in ast.walk(node)
    )


def _bound_names(stmt) -> set[str]:
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _names_in(node) -> set[str]:
    return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute))}


def provisional_findings(base_text: str, base_findings: list[Finding], text: str, analyse) -> list[Finding] | None:
    """The findings for `text`, from those of `base_text` and an analysis of the edited def's slice.

    `analyse(slice_text)` returns the slice's findings, or None if it cannot be analysed. None: the
    edit is not inside one def's body (or does not parse); the caller runs the exact analysis.
    """
    old_lines, new_lines = lines_of(base_text), lines_of(text)
    first, old_last, new_last = changed_lines(old_lines, new_lines)
    if old_last < first and new_last < first:
        return list(base_findings)
    try:
        old_tree, new_tree = _parsed(base_text), _parsed(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    old_unit = edited_unit(old_tree, old_lines, first, old_last)
    new_unit = edited_unit(new_tree, new_lines, first, new_last)
    if old_unit is None or new_unit is None or old_unit.path != new_unit.path or old_unit.name != new_unit.name:
        return None
    if header(old_lines, old_unit) != header(new_lines, new_unit):
        return None  # a decorator or signature changed: other functions' findings may depend on it
    if (_reaches_others(old_lines, old_unit) or _reaches_others(new_lines, new_unit)) \
            and _calls(old_tree, old_unit) != _calls(new_tree, new_unit):
        return None  # what it calls under `pytest.raises` or hands to a jit decides other defs' fixes
    piece = build_slice(new_tree, new_lines, new_unit)
    found = analyse(piece.text)
    if found is None:
        return None
    delta = len(new_lines) - len(old_lines)
    # (A related place of this file moves with the text after the change: inside the edited def too, where
    # a test's `with pytest.raises` says why another def's fix is withheld.)
    kept = [_shifted(f, 0, old_last, delta) for f in base_findings if f.span.end_line < old_unit.start]
    kept += [_shifted(f, delta, old_last, delta) for f in base_findings if f.span.line > old_unit.end]
    fresh = [g for g in (piece.to_document(f) for f in found) if g is not None]
    return sorted(kept + fresh, key=lambda f: (f.span, f.code))


# Words of a def whose edit can change what the rules say of other defs: code meant to fail around a call
# (analysis/testcode.py: the callees' fixes are withheld) and a bound method handed to a jit (`jax.jit(self.step)`:
# the methods it calls are traced).
_REACHING_WORDS = ("raises", "Raises", "warns", "Warns", "xfail", "expectedFailure", "catch_warnings")


def _reaches_others(lines: list[str], unit: Unit) -> bool:
    text = "".join(lines[unit.start - 1 : unit.end])
    return any(word in text for word in _REACHING_WORDS) or "jit(self." in text \
        or unit.name.startswith("test") and "except" in text


def _calls(tree: ast.Module, unit: Unit) -> list[str]:
    """The callees the def calls or passes, as spelled, in order."""
    node = _node_at(tree, unit.path)
    return [ast.dump(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)]


@lru_cache(maxsize=4)
def _parsed(text: str) -> ast.Module:
    """The base text is parsed once for all the edits that follow it (nobody mutates the trees)."""
    return ast.parse(text)


def _shifted(finding: Finding, move_by: int, after: int, delta: int) -> Finding:
    """The finding moved by `move_by` lines; the related places in this file past `after` move by `delta`."""
    if not delta:
        return finding
    s = finding.span
    return replace(finding, span=Span(s.line + move_by, s.column, s.end_line + move_by, s.end_column),
                   related=_renumbered(finding.related, lambda n: n + delta if n > after else n))


def _renumbered(related: tuple[Related, ...], new_line) -> tuple[Related, ...]:
    """The related places of this file at their new lines (those of other files stay)."""
    return tuple(r if r.path is not None else
                 replace(r, span=Span(new_line(r.span.line), r.span.column, new_line(r.span.end_line), r.span.end_column))
                 for r in related)
