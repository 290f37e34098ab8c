"""The migrations, decided on `ast` (rewriter/ast_rule.py): a reference or an import read on CPython's tree
and matched to a row of the table, each fix planned there and written on libcst at the twins of the nodes it
names (the builders below). Their libcst reading (`TableMigration`, `CallCollector`) was compared with this
one by tests/harness/differential.py, then deleted.
"""
from __future__ import annotations

import ast
from functools import partial
from typing import ClassVar

from rewriter.lazy_libcst import cst

from rewriter.analysis.ast_names import dotted
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import Replace
from rewriter.emit.spelling import Spelling
from rewriter.findings import Safety, Severity

from ._migration import (
    CallsGate, TableGate, by_hand, chain, describe, import_alias, in_place, min_safety, module_node, normalise,
    requirements, unavailable,
)
from ._migration_rows import STAR, Migration, Status

_IN_ANNOTATION = {ast.arg: ("annotation",), ast.FunctionDef: ("returns",), ast.AsyncFunctionDef: ("returns",),
                  ast.AnnAssign: ("annotation",)}


class AstMigration(CallsGate, AstRule):
    """A migration: its fixes are made for the library releases the project runs (`report(..., requires=...)`),
    and it reads the calls of the functions whose last names are CALLS (`calls`)."""

    CALLS: ClassVar[frozenset[str]] = frozenset()  # the calls of these last names the rule reads (`calls`)
    RELEASES_CHECKED = True  # each row says which release its fix needs (`requires`)
    REMOVES_ERRORS = True  # the old spelling raises on the releases it is fixed for: a test may expect that

    def report(self, node, message, *, fix: PlannedFix | None = None, requires=(), **kwargs):
        """A fix that needs a release the project may not run is not planned: the finding stays, as an info
        naming the evidence (`_migration.unavailable`)."""
        if fix is not None and requires:
            why = unavailable(self.file, requires)
            if why:
                kwargs.update(hint=fix.description or kwargs.get("hint", ""), note=f"not rewritten: {why}", severity=Severity.INFO)
                return super().report(node, message, **kwargs)
        return super().report(node, message, fix=fix, **kwargs)

    def calls(self) -> list[ast.Call]:
        """The calls that may be of a function whose last name is in CALLS: by spelling, or through an import
        alias, in the order written."""
        found = self.__dict__.get("_calls")
        if found is None:
            imported = self.file.names.imported
            found = []
            for node in self.file.nodes(ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
                if name in self.CALLS or isinstance(func, ast.Name) and any(
                        q.rsplit(".", 1)[-1] in self.CALLS for q in imported.get(func.id, ())):
                    found.append(node)
            found = self.__dict__["_calls"] = sorted(found, key=lambda n: (n.lineno, n.col_offset))
        return found


class AstTableMigration(TableGate, AstMigration):
    """Reports references to the sources of `MIGRATIONS` and plans their rewrite into the targets.

    Forms: an attribute chain is rewritten where it is read; a `from M
    import old [as a]` import is rewritten to import the target under the same local name; a bare name
    bound by a star import is renamed when the star import also exports the new name.
    """

    MIGRATIONS: ClassVar[tuple[Migration, ...]] = ()

    def check(self) -> None:
        self._by_source = {m.source: m for m in self.MIGRATIONS}
        self._modules = {m.source: m for m in self.MIGRATIONS if m.module}
        last = {m.name for m in self.MIGRATIONS if not m.module}
        candidates: list[ast.expr] = []
        for node in self.file.nodes(ast.Import, ast.ImportFrom, ast.Attribute, ast.Name):
            kind = type(node)
            if kind is ast.Import:
                for alias in node.names:  # type: ignore[attr-defined]
                    migration = self._module_for(alias.name)
                    if migration is not None:
                        self._report_module(alias, alias.name, migration)
            elif kind is ast.ImportFrom:
                self._import_from_statement(node)  # type: ignore[arg-type]
            elif kind is ast.Attribute and node.attr in last or kind is ast.Name and node.id in last:  # type: ignore[attr-defined]
                candidates.append(node)  # type: ignore[arg-type]
        names = self.file.names
        for node in sorted(candidates, key=lambda n: (n.lineno, n.col_offset)):
            if names.scope(node) is None or _is_store(names, node):
                continue
            qualified, via_star = self._resolve(node)
            migration = self._by_source.get(qualified) if qualified else None
            if migration is None or migration.module:
                continue
            if isinstance(node, ast.Name) and not via_star:
                continue  # bound by `from M import old`: fixed at the import
            self.reference(node, migration, via_star)

    # -- resolution ------------------------------------------------------------------------------
    def _resolve(self, node: ast.expr) -> tuple[str | None, bool]:
        """(the one qualified name `node` denotes, whether it came through a star import)."""
        scope = self.file.names.scope(node)
        if scope is None:
            return None, False
        found = {q.name for q in scope.get_qualified_names_for(node)}
        if found:
            return (normalise(found.pop()), False) if len(found) == 1 else (None, False)
        star = self._star_name(node)
        return (normalise(star), True) if star else (None, False)

    def _star_name(self, node: ast.expr) -> str | None:
        text = dotted(node)
        names = self.file.names
        if text is None or not names.star_modules:
            return None
        head, _, rest = text.partition(".")
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        scope = names.scope(root)
        if scope is None or head in scope:
            return None  # bound in the file (or a builtin): not from the star import
        for module in reversed(names.star_modules):
            if module not in STAR:
                return None  # a star import whose exports are not known may bind it
            target = STAR[module].get(head)
            if target:
                return target + ("." + rest if rest else "")
        return None

    def _through_phiflow_3(self, node: ast.expr) -> bool:
        scope = self.file.names.scope(node)
        found = {q.name for q in scope.get_qualified_names_for(node)} if scope is not None else set()
        return any(normalise(name) != name for name in found)

    # -- what each form becomes ---------------------------------------------------------------
    def _module_for(self, full: str) -> Migration | None:
        for source, migration in self._modules.items():
            if full == source or full.startswith(source + "."):
                return migration
        return None

    def _report_module(self, node: ast.AST, full: str, migration: Migration) -> None:
        self.report(node, f"{describe(migration, full)}: importing it fails", hint=migration.why,
                    note="not rewritten: no equivalent module", severity=migration.severity)

    def message(self, migration: Migration, spelled: str) -> str:
        """What became of the name as spelled here; what it is now is the fix title or the hint."""
        return describe(migration, spelled)

    def refusal(self, migration: Migration) -> str:
        """Why a read of the name is reported without a fix (`note:`), when the table says it."""
        return "not rewritten: no equivalent with the same meaning" if migration.safety is Safety.DISPLAY else ""

    def reference(self, node: ast.expr, migration: Migration, via_star: bool) -> None:
        """Report one read of a legacy name (an Attribute, or a Name from a star import) and plan its fix."""
        file = self.file
        message = self.message(migration, file.python.text(node))
        if migration.target is None and migration.value is None:
            self.report(node, message, hint=by_hand(migration), note=self.refusal(migration), severity=migration.severity)
            return
        if migration.annotation_only and not _in_annotation(file.names, node):
            self.report(node, message, hint=by_hand(migration), note="not rewritten: the fix is only made in annotations",
                        severity=migration.severity)
            return
        planned = self._replacement(node, migration, via_star)
        if planned is None:
            self.report(node, message, hint=by_hand(migration), note="not rewritten: the new name is not reachable here",
                        severity=migration.severity)
            return
        text, at, build, imports = planned
        self.report(node, message, severity=migration.severity, note=migration.why if migration.safety is Safety.UNSAFE else "",
                    fix=PlannedFix(f"use `{text}`", at, build, migration.safety, imports=imports),
                    requires=requirements(migration, via_star or self._through_phiflow_3(node)))

    def _replacement(self, node: ast.expr, migration: Migration, via_star: bool):
        """(the new code's text, the nodes its fix edits, how it is written on libcst, the imports it needs),
        or None where the new name is not reachable."""
        source_module = migration.source.rsplit(".", 1)[0]
        text = self.file.python.text
        if migration.value is not None:
            kind, value = migration.value
            if kind == "literal":
                return value, (node,), partial(_write, new=value), ()
            base = node.value if isinstance(node, ast.Attribute) and self._resolve(node.value)[0] == source_module else None
            if base is None:
                return None
            return f"-{text(base)}.{value}", (node, base), partial(_write_negated, name=value), ()
        target = migration.target or ""
        if isinstance(node, ast.Name):  # via a star import: the star import must export the new name too
            names = self.file.names
            module = next((m for m in reversed(names.star_modules) if node.id in STAR.get(m, {})), None)
            local = next((k for k, v in STAR.get(module or "", {}).items() if v == target), None)
            scope = names.scope(node)
            if local is None or scope is None or local in scope:
                return None
            later = names.star_modules[names.star_modules.index(module) + 1:]
            if any(m not in STAR or local in STAR[m] and STAR[m][local] != target for m in later):
                return None  # a later `import *` (of a module whose exports are not known) may rebind it
            return local, (node,), partial(_write, new=local), ()
        expr = node.value if isinstance(node, ast.Attribute) else None
        while expr is not None:  # a module of the chain that holds the target: `jax.tree_util` of `jax.tree_util.tree_map`
            qualified, _ = self._resolve(expr)
            if qualified and target.startswith(qualified + "."):
                rest = tuple(target[len(qualified) + 1:].split("."))
                return ".".join((text(expr), *rest)), (node, expr), partial(_write_chain, rest=rest), ()
            expr = expr.value if isinstance(expr, ast.Attribute) else None
        target_module, target_name = target.rsplit(".", 1)
        spelling = Spelling(self.file.names, self.file.python.identifiers)  # type: ignore[arg-type]
        spelled = spelling.text(target_module, target_name)
        return spelled, (node,), partial(_write, new=spelled), tuple(spelling.imports)

    def _import_from_statement(self, node: ast.ImportFrom) -> None:
        if node.level or node.module is None or any(a.name == "*" for a in node.names):
            return
        module = node.module
        migration = self._module_for(module)
        if migration is not None:
            self._report_module(node, module, migration)
            return
        for index, alias in enumerate(node.names):
            full = normalise(f"{module}.{alias.name}")
            if full in self._modules:
                self._report_module(alias, full, self._modules[full])
            elif full in self._by_source:
                self._import_from(node, index, module, self._by_source[full])

    def _import_from(self, node: ast.ImportFrom, index: int, module: str, migration: Migration) -> None:
        """`from M import old [as a]`: import the target under the same local name."""
        alias = node.names[index]
        local = alias.asname or alias.name
        message = self.message(migration, f"{module}.{alias.name}")
        if migration.status is Status.REMOVED:
            message += ": importing it fails"
        if migration.target is None or migration.value is not None:
            self.report(alias, message, hint=by_hand(migration), note="not rewritten: the import has no drop-in replacement",
                        severity=migration.severity)
            return
        if migration.annotation_only:
            self.report(alias, message, hint=by_hand(migration), note="not rewritten: the fix is only made in annotations",
                        severity=migration.severity)
            return
        target_module, target_name = migration.target.rsplit(".", 1)
        caveat = migration.why if migration.safety is Safety.UNSAFE else ""
        phiflow_3 = normalise(module + ".x") != module + ".x"
        if normalise(target_module + ".x") == normalise(module + ".x"):
            self.report(alias, message, severity=migration.severity, note=caveat,
                        fix=PlannedFix(f"import `{target_name}` as `{local}`", (node,),
                                       partial(_write_alias, index=index, name=target_name, local=local), migration.safety),
                        requires=requirements(migration, phiflow_3))
            return
        if not self.file.python.alone_on_its_lines(node):
            self.report(alias, message, hint=f"import `{target_name}` from `{target_module}`",
                        note="not rewritten: the import shares its line with other statements", severity=migration.severity)
            return
        moved = [i for i, a in enumerate(node.names) if self._moves(module, a) == target_module]
        if moved[0] != index:
            return  # one fix per statement and target module: reported with the first alias it moves
        rows = [self._by_source[normalise(f"{module}.{node.names[i].name}")] for i in moved]
        new_names = tuple((row.target.rsplit(".", 1)[1], node.names[i].asname or node.names[i].name)  # type: ignore[union-attr]
                          for row, i in zip(rows, moved))
        requires = tuple(dict.fromkeys(r for m in rows for r in requirements(m, phiflow_3)))
        shown = ", ".join(f"`{name}`" if name == as_name else f"`{name} as {as_name}`" for name, as_name in new_names)
        self.report(alias, message, severity=migration.severity,
                    note="; ".join(dict.fromkeys(m.why for m in rows if m.safety is Safety.UNSAFE)),
                    fix=PlannedFix(f"import {shown} from `{target_module}`", (node,),
                                   partial(_write_moved, moved=tuple(moved), new_names=new_names, target_module=target_module),
                                   min_safety([m.safety for m in rows])),
                    requires=requires)

    def _moves(self, module: str, alias: ast.alias) -> str | None:
        """The module an imported name moves to (None: it stays, or is reported only)."""
        m = self._by_source.get(normalise(f"{module}.{alias.name}"))
        if m is None or m.target is None or m.value is not None or m.annotation_only:
            return None
        target_module = m.target.rsplit(".", 1)[0]
        return None if normalise(target_module + ".x") == normalise(module + ".x") else target_module


def _is_store(names, node: ast.expr) -> bool:
    """`node` is the whole target of an assignment, a deletion, a loop or a `with ... as` (libcst's
    `is_store`, which reads the parent alone: an element of a tuple target is read there too)."""
    parent = names.parent(node)
    if isinstance(parent, (ast.Assign, ast.Delete)):
        return any(t is node for t in parent.targets)
    if isinstance(parent, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension)):
        return parent.target is node
    return isinstance(parent, ast.withitem) and parent.optional_vars is node


def _in_annotation(names, node: ast.AST) -> bool:
    """`node` is in a parameter's, a return's or a variable's annotation."""
    current, parent = node, names.parent(node)
    while parent is not None and not isinstance(current, ast.stmt):
        if any(getattr(parent, field, None) is current for field in _IN_ANNOTATION.get(type(parent), ())):
            return True
        current, parent = parent, names.parent(parent)
    return False


# -- writing the planned fixes on libcst --------------------------------------------------------
def _new_expression(text: str) -> cst.BaseExpression:
    """A number (`0.0`, `-0.0`) or a dotted name, as the table's rewrite builds it."""
    if text.lstrip("-")[:1].isdigit():
        return cst.UnaryOperation(cst.Minus(), cst.Float(text[1:])) if text.startswith("-") else cst.Float(text)
    return module_node(text)


def _write(context, node: cst.CSTNode, *, new: str) -> list[Replace] | None:
    if not isinstance(node, cst.BaseExpression):
        return None
    return [Replace(node, in_place(context.analysis.names.parent(node), node, _new_expression(new)))]


def _write_negated(context, node: cst.CSTNode, base: cst.CSTNode, *, name: str) -> list[Replace] | None:
    if not isinstance(node, cst.BaseExpression) or not isinstance(base, cst.BaseExpression):
        return None
    new = cst.UnaryOperation(cst.Minus(), cst.Attribute(base, cst.Name(name)))
    return [Replace(node, in_place(context.analysis.names.parent(node), node, new))]


def _write_chain(context, node: cst.CSTNode, base: cst.CSTNode, *, rest: tuple[str, ...]) -> list[Replace] | None:
    if not isinstance(node, cst.BaseExpression) or not isinstance(base, cst.BaseExpression):
        return None
    return [Replace(node, in_place(context.analysis.names.parent(node), node, chain(base, rest)))]


def _write_alias(context, statement: cst.CSTNode, *, index: int, name: str, local: str) -> list[Replace] | None:
    if not isinstance(statement, cst.ImportFrom) or isinstance(statement.names, cst.ImportStar) or index >= len(statement.names):
        return None
    alias = statement.names[index]
    return [Replace(alias, import_alias(name, local).with_changes(comma=alias.comma))]


def _write_moved(context, statement: cst.CSTNode, *, moved: tuple[int, ...], new_names: tuple[tuple[str, str], ...],
                 target_module: str) -> list[Replace] | None:
    """The statement keeps the names that stay; a new `from <target> import ...` line follows it."""
    line = context.analysis.names.parent(statement)
    if not isinstance(statement, cst.ImportFrom) or isinstance(statement.names, cst.ImportStar) \
            or not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    kept = [a for i, a in enumerate(statement.names) if i not in moved]
    statements = []
    if kept:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        statements.append(line.with_changes(body=[statement.with_changes(
            names=kept, lpar=statement.lpar if len(kept) > 1 else None, rpar=statement.rpar if len(kept) > 1 else None)]))
    statements.append(cst.SimpleStatementLine(
        body=[cst.ImportFrom(module=module_node(target_module), names=[import_alias(n, a) for n, a in new_names])],
        leading_lines=() if kept else line.leading_lines,
        trailing_whitespace=line.trailing_whitespace if not kept else cst.TrailingWhitespace(),
    ))
    return [Replace(line, cst.FlattenSentinel(statements))]
