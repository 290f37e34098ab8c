"""What the migration rules (PML601-PML605) share: the table's words (codemods/_migration_rows.py), their
gates, the releases a fix needs, and the libcst nodes their planned fixes write (the rules themselves are
decided on `ast`: codemods/_ast_migration.py).

A reference is matched by its qualified name (the scopes), never by spelling: `jax.tree_map`,
`import jax as j; j.tree_map`, `from jax import tree_map`, and PhiFlow's `from phi.flow import *`
(whose `math` is `phiml.math` since PhiFlow 3) all resolve to the same row; a user function or a
local variable that happens to be called `tree_map` resolves to something else and is left alone.
"""
from __future__ import annotations

import ast
import re
from typing import ClassVar, Sequence

from rewriter.lazy_libcst import cst

from rewriter.analysis.compilers import LIBRARY_NAMES
from rewriter.findings import Safety

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


# --- what every migration shares ------------------------------------------------------------------

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


class CallsGate:
    """The calls a migration reads, found for its gate on the survey's ast (the rule reads the same:
    `_ast_migration.AstMigration.calls`)."""

    CALLS: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def calls_on_ast(cls, syntax) -> list[ast.Call]:
        """The calls the rule reads, off the survey's ast for the gate (a superset: an alias
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


class TableGate:
    """The gate of a table-driven migration (`_ast_migration.AstTableMigration`): on the survey's ast, before it runs."""

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


def requirements(migration: Migration, phiflow_3: bool = False) -> tuple[tuple[str, str], ...]:
    """What the fix needs of the project's releases: the row's, and PhiFlow 3 where the name was read
    through a table of PhiFlow 3's (a star import of `phi.flow`, `phi.flow.math`)."""
    return (*migration.requires, *(PHIFLOW_3 if phiflow_3 else ()))


def in_place(parent, node, new: cst.BaseExpression) -> cst.BaseExpression:
    """`new` where `node` was: parenthesized where a negation would bind otherwise than the name it replaces."""
    if isinstance(new, cst.UnaryOperation) and (
            isinstance(parent, cst.UnaryOperation)
            or isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Power) and parent.left is node
            or isinstance(parent, (cst.Attribute, cst.Subscript, cst.Call)) and getattr(parent, "value", getattr(parent, "func", None)) is node):
        return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return replacement_in_place(parent, node, new)


def min_safety(safeties: Sequence[Safety]) -> Safety:
    for level in (Safety.DISPLAY, Safety.UNSAFE):
        if level in safeties:
            return level
    return Safety.SAFE
