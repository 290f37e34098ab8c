"""The base every codemod derives from, and the per-file context codemods report into.

Codemods are read-only visitors (their visit_*/leave_* methods, called by cst_tree.visit_batched):
they never mutate the tree. They look at the original tree (with metadata resolved once for all of them) and report Findings whose Fix is a set of edits keyed on
original nodes. The engine decides which fixes to apply (safety, suppressions, conflicts) and
applies them all in one transform. This is what lets every codemod share one parse, one metadata
resolution and one traversal.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Sequence, Union

from .lazy_libcst import cst
from .findings import Finding, Fix, Related, Safety, Severity, Span
from .fix_policy import FixPolicy
from .rule import Example, Rule, Unchanged, dedented  # noqa: F401  (the rules import them from here)

if TYPE_CHECKING:
    from .analysis.module import ModuleAnalysis
    from .suppressions import Suppressions

    Replacement = Union[cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel]


@dataclass(frozen=True)
class Replace:
    """An edit of a fix: `new` where `target` is."""
    target: cst.CSTNode
    new: Replacement


@dataclass(frozen=True)
class InsertBefore:
    """Insert statements before `anchor`, a statement in any block (module level for hoists)."""

    anchor: cst.BaseStatement
    statements: tuple[cst.BaseStatement, ...]


Edit = Union[Replace, InsertBefore]


@dataclass
class ProposedFix:
    """A finding's fix as edits of the libcst tree, and the imports it needs."""
    finding: Finding
    edits: tuple[Edit, ...]
    imports: tuple[tuple[str, str | None, str | None], ...] = ()  # (module, obj, asname) to ensure
    # A function whose analysis this fix changes (it makes a parameter static): fixes inside it wait
    # for the next pass, where they are judged on the function as it is once this fix is in.
    invalidates: cst.CSTNode | None = None


@dataclass
class FileContext(FixPolicy):
    """What a codemod may see of the file being processed, and where it reports."""

    path: str
    wrapper: cst.MetadataWrapper
    unsafe_fixes: bool
    findings: list[Finding] = field(default_factory=list)
    fixes: list[ProposedFix] = field(default_factory=list)
    unsafe_units: frozenset[str] | None = None
    withheld_units: frozenset[str] = frozenset()
    proven_units: frozenset[str] = frozenset()  # Settings.proven_units
    evidence: dict[int, str] = field(default_factory=dict)  # line of a def -> what a profile run saw
    callsite_facts: dict = field(default_factory=dict)  # function -> its parameters' roles (engine.Settings)
    cells: bool = False  # the module is a notebook's code cells joined (rewriter/notebooks)
    error_cells: frozenset[int] = frozenset()  # of those, the cells whose stored outputs hold an error
    project: object = None  # FileFacts: what the rest of the project tells this file (engine.Settings)
    world: object = None  # project.world.World: the library versions its project runs, callers outside the run
    source: bytes | None = None  # the bytes the module was parsed from, when at hand
    outline: tuple | None = None  # positions.statement_outline of CPython's parse of `source`, when at hand

    @cached_property
    def suppressions(self) -> "Suppressions":
        """The file's ignore comments, read once something is reported: from the source the module was
        parsed from (its lines are the module's), else from a code generation of the module."""
        from .suppressions import Suppressions

        if self.source is not None:
            return Suppressions.from_source(self.source.decode(self.module.encoding, errors="replace"))
        return Suppressions.from_source(self.module.code)

    def line_label(self, line: int) -> str:
        """How a message names a line of this module: `line 12`, or `cell 3, line 4` in a notebook."""
        if not self.cells:
            return f"line {line}"
        return self.line_map.label(line)

    @cached_property
    def line_map(self):
        """Lines of the module -> cells, for a notebook's joined cells (rewriter/notebooks/cells.py)."""
        from .boundaries import LineMap

        return LineMap(self.module.code)

    def policy_code(self) -> str:
        return self.module.code

    @property
    def module(self) -> cst.Module:
        return self.wrapper.module

    @cached_property
    def analysis(self) -> "ModuleAnalysis":
        from .analysis.module import ModuleAnalysis

        analysis = ModuleAnalysis(self.wrapper, self.path, self.callsite_facts, self.project, self.world)
        analysis.names.source = self.source
        analysis.names.outline = self.outline
        if self.cells:
            analysis.error_cells = self.error_cells
        return analysis

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def release(self) -> None:
        """The pass is over (its findings and fixes are read): free what the analysis holds in cycles
        (ModuleAnalysis.release). Nothing may be asked of the analysis after."""
        if "analysis" in self.__dict__:
            self.analysis.release()


class Codemod(Rule):
    """A rule decided on libcst: what it finds, why it matters, and how it fixes it.

    Subclasses declare the rule (rewriter/rule.py) and implement visit_*/leave_* methods that call
    `self.report(...)`: cst_tree.visit_batched calls them, as libcst's batched traversal calls a
    `BatchableCSTVisitor`'s. The class derives from no libcst class, so that loading the rules imports no
    libcst (lazy_libcst): a `--check` that shows no fix never needs it. The class docstring is the rule's
    documentation ("why"). The tool's rules are all decided on CPython's `ast` (rewriter/ast_rule.py), where
    names are resolved; a rule on libcst reads its tree's nodes, parents and positions, and what the file's
    imports bind (analysis/names.py), no scopes.
    """

    def __init__(self, file: FileContext) -> None:
        self.file = file

    @classmethod
    def may_report(cls, file) -> bool | None:
        """Whether the rule may report in `file` (an ast_rule.AstFile), asked of the analysis the rules on
        `ast` read once they have read it: False proves the libcst pass would report nothing, so a file whose
        other rules are all on `ast` is not parsed by libcst to show findings (engine.process_source). None:
        the rule cannot tell without libcst (the default)."""
        return None

    # -- reporting -------------------------------------------------------------------------
    def span(self, node: cst.CSTNode | ast.AST) -> Span:
        """Where `node` is: a libcst node, or an `ast` node the analysis on `ast` names (a derivation's step)."""
        if isinstance(node, ast.AST):
            return self.file.analysis.locator.span(node)
        r = self.file.analysis.names.positions[node]
        return Span(r.start.line, r.start.column, r.end.line, r.end.column)

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        edits: Sequence[Edit] = (),
        safety: Safety | None = None,
        fix_description: str = "",
        hint: str = "",
        note: str = "",
        related: Sequence[Related | tuple[cst.CSTNode | ast.AST | Span, str]] = (),
        imports: Sequence[tuple[str, str | None, str | None]] = (),
        severity: Severity | None = None,
        invalidates: cst.CSTNode | None = None,
        provable: bool = False,
    ) -> Finding | None:
        """Record a finding at `node`; `edits` (if any) are its fix, titled `fix_description` (`help:`).
        `message` says what is wrong, in one glance; the why is the rule's explain page. Without a fix,
        `hint` is the fix by hand; `note` says why there is no automatic fix, or its caveat; `related`
        are the other places the finding refers to (a node or span of this file, and what it is there).
        `provable`: an unsafe fix whose only doubt is that merged values may differ in shape, dtype or
        structure, which an abstract proof (verify/synthesis/abstract.py) settles. Returns None if suppressed, or
        if `node` is in a branch that cannot run on the installed versions (`if hasattr(jax, ...)`:
        see rewriter/analysis/reachability.py), where a finding is noise and a fix would break the
        fallback for other releases."""
        span = self.span(node)
        if self.file.suppressions.is_suppressed(span, self.CODE, self.NAME):
            return None
        reachability = self.file.analysis.reachability
        if not reachability.may_run(span):
            return None
        if edits and reachability.doubt:  # (a file only a newer Python parses, with compatibility checks)
            hint = hint or fix_description
            edits, imports, safety, fix_description = (), (), None, ""
            note = "; ".join(filter(None, (f"not fixed: {reachability.doubt}", note)))
        fix = None
        refused = self._refusal(node, edits) if edits and (self.REMOVES_ERRORS or self.CHANGES_STRUCTURE) else None
        if refused is not None:
            why, where = refused
            edits, fix_description = (), ""
            note = "; ".join(filter(None, (why, note)))
            related = (*related, where)
        if edits and self.MOVES_CODE and (safety or self.SAFETY) is Safety.SAFE and self.file.analysis.testcode.in_test(span):
            safety = Safety.UNSAFE
            note = "; ".join(filter(None, (note, "unsafe in test code: tests observe the names, frames and trace caches the move changes")))
            fix_description = f"{fix_description or 'apply the fix'} (unsafe in test code)"
        if edits and (safety or self.SAFETY) is Safety.SAFE and not self.RELEASES_CHECKED:
            doubt = self._release_doubt(edits, imports)
            if doubt:
                safety = Safety.UNSAFE
                note = "; ".join(filter(None, (note, f"unsafe: {doubt}")))
        if edits or safety is Safety.DISPLAY:
            fix = Fix(safety or self.SAFETY, fix_description)
        finding = Finding(
            code=self.CODE,
            name=self.NAME,
            message=message,
            path=self.file.path,
            span=span,
            severity=severity or self.SEVERITY,
            fix=fix,
            hint=hint,
            note=note,
            related=tuple(r if isinstance(r, Related) else Related(r[0] if isinstance(r[0], Span) else self.span(r[0]), r[1])
                          for r in related),
        )
        self.file.findings.append(finding)
        if edits and fix is not None and self.file.fix_enabled(fix.safety, span.line, provable):
            self.file.fixes.append(ProposedFix(finding, tuple(edits), tuple(imports), invalidates))
        return finding

    def _refusal(self, node: cst.CSTNode, edits: Sequence[Edit]) -> tuple[str, tuple[Span, str]] | None:
        """Why the fix must not be applied here, and the place that says so: code meant to fail (for rules
        that remove errors or change structure), or a test that reads the structure the fix changes."""
        analysis = self.file.analysis
        span = self.span(node)
        if analysis.testcode.expects_failure:  # (the places' spans only when some code may be meant to fail)
            places = [node, *(getattr(edit, "target", None) or edit.anchor for edit in edits)]
            statements = (cst.BaseStatement, cst.BaseSmallStatement)
            for place in places:
                expecting = analysis.expected_failure(self.span(place), isinstance(place, statements))
                if expecting is not None:
                    return f"not fixed: this code is expected to fail: {expecting.how}", (expecting.anchor, "expected to fail here")
        if self.CHANGES_STRUCTURE and analysis.testcode.in_test(span):
            read = analysis.testcode.structure_read(span, self.CHANGES_STRUCTURE)
            if read is not None:
                who = "this test inspects" if read.test else "the tests of this module inspect"
                return f"not fixed: {who} the structure the fix changes: {read.what}", (read.place, "read here")
        return None

    def _release_doubt(self, edits: Sequence[Edit], imports) -> str:
        """Why the fix's code may not run on the library releases the project runs ("" when it does): the
        code it writes names a library (through the file's imports, or one it adds) older than the
        releases the fixes were checked against (analysis.compilers.FIXES_NEED)."""
        world = self.file.world
        if world is None or not world.targets.found:
            return ""
        from .analysis.compilers import FIXES_NEED, LIBRARY_NAMES
        from .cst_tree import branches

        older = {root: why for root, version in FIXES_NEED.items() if (why := world.targets.at_least(root, version))}
        if not older:
            return ""  # (the usual case: nothing to read in the fix's code)
        roots = {module.split(".", 1)[0] for module, *_ in imports if module}
        imported = self.file.analysis.names.imported
        for edit in edits:
            new = getattr(edit, "new", None)
            stack = [*(new.nodes if isinstance(new, cst.FlattenSentinel) else [new]), *getattr(edit, "statements", ())]
            stack = [n for n in stack if isinstance(n, cst.CSTNode)]
            while stack:
                node = stack.pop()
                if type(node) is cst.Name:
                    roots |= {q.split(".", 1)[0] for q in imported.get(node.value, ())}
                stack.extend(branches(node))
        named = sorted(roots & older.keys())
        if not named:
            return ""
        root = named[0]
        return f"{older[root]}, and the fix's code was checked against {LIBRARY_NAMES[root]} {FIXES_NEED[root]} or newer"

    # -- metadata helpers shared by all codemods -----------------------------------------------
    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.file.analysis.names.parent(node)
