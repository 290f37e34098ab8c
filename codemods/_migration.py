"""What the migration codemods (PML601-PML605) share: matching a reference to a row of the table
(codemods/_migration_rows.py) and reporting or rewriting it.

A reference is matched by its qualified name (libcst scopes), never by spelling: `jax.tree_map`,
`import jax as j; j.tree_map`, `from jax import tree_map`, and PhiFlow's `from phi.flow import *`
(whose `math` is `phiml.math` since PhiFlow 3) all resolve to the same row; a user function or a
local variable that happens to be called `tree_map` resolves to something else and is left alone.
"""
from __future__ import annotations

import ast
import re
from typing import ClassVar, Sequence

import libcst as cst

from rewriter.analysis.compilers import LIBRARY_NAMES
from rewriter.analysis.names import dotted
from rewriter.codemod import Codemod, Replace
from rewriter.emit.spelling import Spelling
from rewriter.findings import Safety, Severity

from ._migration_rows import MODULE_ALIASES, STAR, Migration, Status
from ._shared import replacement_in_place


def describe(migration: Migration, spelled: str | None = None) -> str:
    """What became of the name, in a few words: "`jnp.product` was removed in jax 0.4.16"."""
    name = f"`{spelled or migration.source}`"
    if migration.status is Status.REMOVED:
        if re.fullmatch(r"\S+ [0-9.]+", migration.since):
            return f"{name} was removed in {migration.since}"
        return f"{name} was removed ({migration.since})" if "removed" in migration.since else f"{name} does not exist ({migration.since})"
    if migration.status is Status.DEPRECATED:
        return f"{name} is deprecated since {migration.since}"
    return f"{name} is only a compatibility alias ({migration.since})"


def by_hand(migration: Migration) -> str:
    """What to write instead, where the fix is not made (a `help:` hint)."""
    if migration.target is None and migration.value is None or migration.annotation_only:
        return migration.why
    return f"use `{_replacement(migration)}`"


def _replacement(migration: Migration) -> str:
    if migration.value is None:
        return migration.target or ""
    return {"neg_attr": f"-{migration.target}", "literal": migration.value[1]}[migration.value[0]]


def normalise(name: str) -> str:
    for old, new in MODULE_ALIASES:
        if name.startswith(old):
            return new + name[len(old):]
    return name


# --- resolution -----------------------------------------------------------------------------------

def star_name(file, node: cst.BaseExpression) -> str | None:
    """What `node` (a Name/Attribute chain whose root is not bound in the file) denotes through a
    module-level star import of the STAR table, else None."""
    text = dotted(node)
    names = file.analysis.names
    if text is None or not names.star_modules:
        return None
    head, _, rest = text.partition(".")
    root = node
    while isinstance(root, cst.Attribute):
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


def resolve(file, node: cst.BaseExpression) -> tuple[str | None, bool]:
    """(the one qualified name `node` denotes, whether it came through a star import)."""
    names = file.analysis.names
    scope = names.scope(node)
    if scope is None:
        return None, False
    found = {q.name for q in scope.get_qualified_names_for(node)}
    if found:
        return (normalise(found.pop()), False) if len(found) == 1 else (None, False)
    star = star_name(file, node)
    return (normalise(star), True) if star else (None, False)


def is_store(parent: cst.CSTNode | None, node: cst.CSTNode) -> bool:
    """`node` is assigned or deleted (`jax.tree_map = ...`), not read."""
    if isinstance(parent, (cst.AssignTarget, cst.Del, cst.AsName)):
        return True
    if isinstance(parent, (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor)):
        return parent.target is node
    return False


def in_annotation(file, node: cst.CSTNode) -> bool:
    current = node
    while current is not None and not isinstance(current, (cst.BaseStatement, cst.Module)):
        if isinstance(current, cst.Annotation):
            return True
        current = file.analysis.names.parent(current)
    return False


def chain(base: cst.BaseExpression, parts: Sequence[str]) -> cst.BaseExpression:
    for part in parts:
        base = cst.Attribute(base, cst.Name(part))
    return base


def import_alias(name: str, local: str) -> cst.ImportAlias:
    """`name as local` (or `name` when they agree)."""
    return cst.ImportAlias(name=cst.Name(name), asname=None if name == local else cst.AsName(cst.Name(local)))


def module_node(dotted_name: str) -> cst.Attribute | cst.Name:
    parts = dotted_name.split(".")
    return chain(cst.Name(parts[0]), parts[1:])  # type: ignore[return-value]


# --- the table-driven codemod ---------------------------------------------------------------------

# What the tables' resolution of a star import or a `phi.<backend>.flow.math` spelling rests on: PhiFlow 3.4's
# `phi.flow` (its `math` is phiml.math). A project on an older PhiFlow has `phi.math` there.
PHIFLOW_3 = (("phi", "3.4.0"),)  # `math` of `phi.flow` is phiml.math from 3.4 (phi.math before)


def unavailable(file, requires) -> str:
    """Why the project may not run a release the fix needs ("" when it provably does, or nothing says
    otherwise): the evidence of what it runs (a pin, its own copy), and the release needed."""
    world = file.world
    if world is None:
        return ""
    for root, version in requires:
        why = world.targets.at_least(root, version)
        if why:
            return f"{why}; the fix needs {LIBRARY_NAMES.get(root, root)} {version} or newer"
    return ""


class CallCollector(Codemod):
    """Keeps in `self._calls` the calls that may be of a function whose last name is in CALLS: by
    spelling, or through an import alias (no metadata needed; the subclass resolves them later).

    A migration's fix is made for the library releases the project runs: `report(..., requires=...)`
    keeps a finding whose fix needs a release the project may not have, without the fix (`unavailable`)."""

    CALLS: ClassVar[frozenset[str]] = frozenset()
    RELEASES_CHECKED = True  # each row says which release its fix needs (`requires`)
    REMOVES_ERRORS = True  # the old spelling raises on the releases it is fixed for: a test may expect that

    def report(self, node, message, *, edits=(), requires=(), **kwargs):
        if edits and requires:
            why = unavailable(self.file, requires)
            if why:
                hint = kwargs.pop("fix_description", "") or kwargs.get("hint", "")
                kwargs.pop("safety", None)
                kwargs.pop("imports", None)
                kwargs.update(hint=hint, note=f"not rewritten: {why}", severity=Severity.INFO)
                return super().report(node, message, **kwargs)
        return super().report(node, message, edits=edits, **kwargs)

    def __init__(self, file) -> None:
        super().__init__(file)
        self._calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        if name in self.CALLS or isinstance(func, cst.Name) and any(
                q.rsplit(".", 1)[-1] in self.CALLS for q in self.file.analysis.names.imported.get(name, ())):
            self._calls.append(node)

    @classmethod
    def calls_on_ast(cls, syntax) -> list[ast.Call]:
        """The calls `visit_Call` keeps, read off CPython's ast for the gate (a superset: an alias
        counts through any import of the name in the file)."""
        out = []
        for call in syntax.calls:
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name in cls.CALLS or isinstance(func, ast.Name) and any(
                    q.rsplit(".", 1)[-1] in cls.CALLS for q in syntax.imported.get(name, ())):
                out.append(call)
        return out


def _denotes_a_source(name: str, sources: frozenset[str]) -> bool:
    """A qualified name, or a prefix of it of two parts or more, is one of `sources` (normalised)."""
    parts = normalise(name).split(".")
    return any(".".join(parts[:i]) in sources for i in range(2, len(parts) + 1))


def int_literal(node: ast.AST) -> bool:
    """An int written as a literal (libcst's `Integer`; `True` and `-1` are not)."""
    return isinstance(node, ast.Constant) and type(node.value) is int


def unpacks(call: ast.Call) -> bool:
    """`*args` or `**kwargs` among the arguments."""
    return any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)


class TableMigration(CallCollector):
    """Rewrites references to the sources of `MIGRATIONS` (a table above) into their targets.

    Forms: an attribute chain (`jax.tree_map`, `j.tree_map`, `jnp.NINF`, `math.divide_no_nan` under
    `from phi.flow import *`) is rewritten where it is read; a `from M import old [as a]` import is
    rewritten to import the target under the same local name, so the rest of the file is untouched; a
    bare name bound by a star import is renamed when the star import also exports the new name.
    """

    MIGRATIONS: ClassVar[tuple[Migration, ...]] = ()

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """Some reference or import denotes a source through the file's imports (`jax.tree_map`,
        `from jax.numpy import NINF`, `jax.experimental.host_callback.call`); under a star import,
        some identifier is a source's last name. Words in comments and strings do not count."""
        identifiers = syntax.identifiers
        if cls._gate_names().isdisjoint(identifiers.names):
            return False
        sources = cls._gate_sources()
        if any(_denotes_a_source(name, sources) for name in identifiers.qualified):
            return True
        if identifiers.star_imports:  # `star_name`: through the last `*` import that exports the chain's root
            for text in identifiers.unimported_chains | identifiers.names:
                head, _, rest = text.partition(".")
                for module in reversed(identifiers.star_modules):
                    if module not in STAR:
                        break  # its exports are not known: it may bind the root, to anything
                    target = STAR[module].get(head)
                    if target:
                        if _denotes_a_source(target + ("." + rest if rest else ""), sources):
                            return True
                        break
        return False

    @classmethod
    def _gate_sources(cls) -> frozenset[str]:
        if "_GATE_SOURCES" not in cls.__dict__:
            cls._GATE_SOURCES = frozenset(m.source for m in cls.MIGRATIONS)
        return cls._GATE_SOURCES

    @classmethod
    def _gate_names(cls) -> frozenset[str]:
        if "_GATE_NAMES" not in cls.__dict__:
            cls._GATE_NAMES = frozenset(m.name for m in cls.MIGRATIONS)
        return cls._GATE_NAMES

    def __init__(self, file) -> None:
        super().__init__(file)
        self._by_source = {m.source: m for m in self.MIGRATIONS}
        self._modules = {m.source: m for m in self.MIGRATIONS if m.module}
        self._last = {m.name for m in self.MIGRATIONS if not m.module}
        self._candidates: list[cst.BaseExpression] = []

    # -- collecting (no metadata needed) -----------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in self._last:
            self._candidates.append(node)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self._last:
            self._candidates.append(node)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted(alias.name) or ""
            migration = self._module_for(full)
            if migration is not None:
                self._report_module(alias, full, migration)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = dotted(node.module) or ""
        migration = self._module_for(module)
        if migration is not None:
            self._report_module(node, module, migration)
            return
        for alias in node.names:
            full = normalise(f"{module}.{dotted(alias.name)}")
            if full in self._modules:
                self._report_module(alias, full, self._modules[full])
            elif full in self._by_source:
                self._import_from(node, alias, module, self._by_source[full])

    def leave_Module(self, original_node: cst.Module) -> None:
        names = self.file.analysis.names
        for node in self._candidates:
            parent = names.parent(node)
            if isinstance(parent, cst.Attribute) and parent.attr is node:
                continue  # the `tree_map` of `jax.tree_map`: the Attribute is the candidate
            if isinstance(node, cst.Name) and (isinstance(parent, (cst.ImportAlias, cst.Arg)) or names.scope(node) is None):
                continue  # an import's own name (handled at the import) or a keyword
            if is_store(parent, node):
                continue
            qualified, via_star = resolve(self.file, node)
            migration = self._by_source.get(qualified) if qualified else None
            if migration is None or migration.module:
                continue
            if isinstance(node, cst.Name) and not via_star:
                continue  # bound by `from M import old`: fixed at the import
            self.reference(node, parent, migration, via_star)

    # -- what each form becomes ---------------------------------------------------------------
    def _module_for(self, full: str) -> Migration | None:
        for source, migration in self._modules.items():
            if full == source or full.startswith(source + "."):
                return migration
        return None

    def _report_module(self, node: cst.CSTNode, full: str, migration: Migration) -> None:
        self.report(node, f"{describe(migration, full)}: importing it fails", hint=migration.why,
                    note="not rewritten: no equivalent module", severity=migration.severity)

    def message(self, migration: Migration, spelled: str) -> str:
        """What became of the name as spelled here; what it is now is the fix title or the hint."""
        return describe(migration, spelled)

    def refusal(self, migration: Migration) -> str:
        """Why a read of the name is reported without a fix (`note:`), when the table says it."""
        return "not rewritten: no equivalent with the same meaning" if migration.safety is Safety.DISPLAY else ""

    def reference(self, node: cst.BaseExpression, parent, migration: Migration, via_star: bool) -> None:
        """Report and fix one read of a legacy name (an Attribute, or a Name from a star import)."""
        spelled = self.file.code(node)
        message = self.message(migration, spelled)
        if migration.target is None and migration.value is None:
            self.report(node, message, hint=by_hand(migration), note=self.refusal(migration), severity=migration.severity)
            return
        if migration.annotation_only and not in_annotation(self.file, node):
            self.report(node, message, hint=by_hand(migration), note="not rewritten: the fix is only made in annotations",
                        severity=migration.severity)
            return
        new, imports = self.replacement(node, migration, via_star)
        if new is None:
            self.report(node, message, hint=by_hand(migration), note="not rewritten: the new name is not reachable here",
                        severity=migration.severity)
            return
        self.report(node, message, edits=[Replace(node, self.in_place(parent, node, new))], safety=migration.safety,
                    imports=imports, severity=migration.severity, note=migration.why if migration.safety is Safety.UNSAFE else "",
                    fix_description=f"use `{self.file.module.code_for_node(new)}`",
                    requires=self.requirements(migration, via_star or self._through_phiflow_3(node)))

    def requirements(self, migration, phiflow_3: bool = False) -> tuple[tuple[str, str], ...]:
        """What the fix needs of the project's releases: the row's, and PhiFlow 3 where the name was read
        through a table of PhiFlow 3's (a star import of `phi.flow`, `phi.flow.math`)."""
        return (*migration.requires, *(PHIFLOW_3 if phiflow_3 else ()))

    def _through_phiflow_3(self, node: cst.BaseExpression) -> bool:
        """`node` resolves through a spelling that PhiFlow 3 alone makes `phiml.math` (`phi.flow.math`)."""
        names = self.file.analysis.names
        scope = names.scope(node)
        found = {q.name for q in scope.get_qualified_names_for(node)} if scope is not None else set()
        return any(normalise(name) != name for name in found)

    def in_place(self, parent, node, new: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(new, cst.UnaryOperation) and (
                isinstance(parent, cst.UnaryOperation)
                or isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Power) and parent.left is node
                or isinstance(parent, (cst.Attribute, cst.Subscript, cst.Call)) and getattr(parent, "value", getattr(parent, "func", None)) is node):
            return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return replacement_in_place(parent, node, new)

    def replacement(self, node: cst.BaseExpression, migration: Migration, via_star: bool):
        """(the new expression, imports it needs) or (None, ())."""
        source_module = migration.source.rsplit(".", 1)[0]
        if migration.value is not None:
            kind, text = migration.value
            if kind == "literal":
                return (cst.UnaryOperation(cst.Minus(), cst.Float(text[1:])) if text.startswith("-") else cst.Float(text)), ()
            base = self._module_expression(node, source_module)
            if base is None:
                return None, ()
            return cst.UnaryOperation(cst.Minus(), cst.Attribute(base, cst.Name(text))), ()
        target = migration.target
        if isinstance(node, cst.Name):  # via a star import: the star import must export the new name too
            names = self.file.analysis.names
            module = next((m for m in reversed(names.star_modules) if node.value in STAR.get(m, {})), None)
            local = next((k for k, v in STAR.get(module, {}).items() if v == target), None)
            scope = names.scope(node)
            if local is None or scope is None or local in scope:
                return None, ()
            later = names.star_modules[names.star_modules.index(module) + 1:]
            if any(m not in STAR or local in STAR[m] and STAR[m][local] != target for m in later):
                return None, ()  # a later `import *` (of a module whose exports are not known) may rebind it
            return cst.Name(local), ()
        found = self._prefix_in_chain(node.value, target)
        if found is not None:
            base, rest = found
            return chain(base, rest), ()
        target_module, target_name = target.rsplit(".", 1)
        spelling = Spelling(self.file.analysis.names, self.file.analysis.identifiers)
        return spelling(target_module, target_name), tuple(spelling.imports)

    def _module_expression(self, node: cst.BaseExpression, module: str) -> cst.BaseExpression | None:
        if isinstance(node, cst.Attribute) and resolve(self.file, node.value)[0] == module:
            return node.value
        return None

    def _prefix_in_chain(self, expr: cst.BaseExpression, target: str):
        """(an expression in the chain `expr` that denotes a module containing `target`, the rest of the path)."""
        while True:
            qualified, _ = resolve(self.file, expr)
            if qualified and target.startswith(qualified + "."):
                return expr, target[len(qualified) + 1:].split(".")
            if not isinstance(expr, cst.Attribute):
                return None
            expr = expr.value

    def _import_from(self, node: cst.ImportFrom, alias: cst.ImportAlias, module: str, migration: Migration) -> None:
        """`from M import old [as a]`: import the target under the same local name."""
        local = alias.asname.name.value if alias.asname is not None else dotted(alias.name)
        message = self.message(migration, f"{module}.{dotted(alias.name)}")
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
        new_alias = import_alias(target_name, local).with_changes(comma=alias.comma)
        caveat = migration.why if migration.safety is Safety.UNSAFE else ""
        requires = self.requirements(migration, normalise(module + ".x") != module + ".x")
        if normalise(target_module + ".x") == normalise(module + ".x"):
            self.report(alias, message, edits=[Replace(alias, new_alias)], safety=migration.safety, severity=migration.severity,
                        fix_description=f"import `{target_name}` as `{local}`", note=caveat, requires=requires)
            return
        line = self.parent(node)
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or isinstance(node.names, cst.ImportStar):
            self.report(alias, message, hint=f"import `{target_name}` from `{target_module}`",
                        note="not rewritten: the import shares its line with other statements", severity=migration.severity)
            return
        moved = [a for a in node.names if self._moves(module, a) == target_module]
        if moved[0] is not alias:
            return  # one fix per statement and target module: reported with the first alias it moves
        kept = [a for a in node.names if a not in moved]
        statements = []
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            statements.append(line.with_changes(body=[node.with_changes(names=kept, lpar=node.lpar if len(kept) > 1 else None,
                                                                          rpar=node.rpar if len(kept) > 1 else None)]))
        new_names = []
        for a in moved:
            m = self._by_source[normalise(f"{module}.{dotted(a.name)}")]
            a_local = a.asname.name.value if a.asname is not None else dotted(a.name)
            new_names.append(import_alias(m.target.rsplit(".", 1)[1], a_local))
        new_line = cst.SimpleStatementLine(
            body=[cst.ImportFrom(module=module_node(target_module), names=new_names)],
            leading_lines=() if kept else line.leading_lines,
            trailing_whitespace=line.trailing_whitespace if not kept else cst.TrailingWhitespace(),
        )
        statements.append(new_line)
        rows = [self._by_source[normalise(f"{module}.{dotted(a.name)}")] for a in moved]
        requires = tuple(dict.fromkeys(r for m in rows for r in self.requirements(m, normalise(module + ".x") != module + ".x")))
        self.report(alias, message, edits=[Replace(line, cst.FlattenSentinel(statements))], safety=min_safety([m.safety for m in rows]),
                    requires=requires,
                    severity=migration.severity,
                    note="; ".join(dict.fromkeys(m.why for m in rows if m.safety is Safety.UNSAFE)),
                    fix_description=f"import {', '.join(f'`{self.file.module.code_for_node(a)}`' for a in new_names)} from `{target_module}`")

    def _moves(self, module: str, alias: cst.ImportAlias) -> str | None:
        """The module an imported name moves to (None: it stays, or is reported only)."""
        m = self._by_source.get(normalise(f"{module}.{dotted(alias.name)}"))
        if m is None or m.target is None or m.value is not None or m.annotation_only:
            return None
        target_module = m.target.rsplit(".", 1)[0]
        return None if normalise(target_module + ".x") == normalise(module + ".x") else target_module


def min_safety(safeties: Sequence[Safety]) -> Safety:
    for level in (Safety.DISPLAY, Safety.UNSAFE):
        if level in safeties:
            return level
    return Safety.SAFE
