"""Rules decided on CPython's `ast` (issue 45: one analysis; libcst only to write fixes).

A rule on `ast` reads the file's `AstModule` (names, jit contexts) and reports at `ast` nodes, placed where
libcst would place their twins, so its findings are those it made on libcst. Its fix is planned, not
written (`PlannedFix`): the finding, its safety and its title are decided here, and the edit is built on
libcst only when a fix is written or shown, at the libcst twins of the nodes the plan names
(locator.Locator.cst_of). So a run that only reports (`--check`) never parses a file whose rules are all
of this kind (engine.process_source); beside rules on libcst, they share the reading of the same source
(`AstFile.beside`).
"""
from __future__ import annotations

import ast
import io
import tokenize
from functools import cached_property
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .findings import Finding, Fix, Related, Safety, Severity, Span
from .fix_policy import FixPolicy
from .rule import Rule

if TYPE_CHECKING:
    from .analysis.ast_module import AstModule
    from .codemod import FileContext


@dataclass
class PlannedFix:
    """A fix decided on `ast`: its title and safety, and how to write it on libcst.

    `at`: the nodes it edits (for `REMOVES_ERRORS`/`CHANGES_STRUCTURE`, places of code meant to fail);
    `build(context, *twins)`: given the FileContext of the libcst pass and the libcst twin of each of `at`,
    the edits (codemod.Replace, InsertBefore), or None where it cannot be written; `imports`, what they need.
    `reads`: the nodes whose names the fix's code holds, and `spelled` the names it adds through the file's
    imports (the libraries it names, checked against the project's releases when the fix is safe). `invalidates`: the function whose analysis the fix changes
    (a parameter made static): fixes inside it wait for the next pass (codemod.ProposedFix). `needs`: further
    nodes, inside those of `at`, whose twins `build` takes after theirs (a call the fix renames inside the
    body it replaces): they are not places the fix edits as a whole."""

    description: str
    at: Sequence[ast.AST]
    build: Callable[..., "Sequence[Any] | None"]
    safety: Safety | None = None
    provable: bool = False
    imports: Sequence[tuple[str, str | None, str | None]] = ()
    reads: Sequence[ast.AST] = ()
    invalidates: ast.AST | None = None
    needs: Sequence[ast.AST] = ()
    spelled: Sequence[str] = ()  # names of the file's imports the fix's code spells beside those in `reads` (`jnp`)


class AstFile(FixPolicy):
    """What a rule on `ast` may see of the file being processed, and where it reports.

    `python` is the module as CPython reads it (its tree is None for a newer Python's grammar); `reading`
    is what the rules read: the same module, or its lowered twin (analysis/lowering.py), whose lines and
    columns are the file's. Reachability and test code read `python`, and fail closed where it has no tree,
    as they do for the rules on libcst."""

    def __init__(self, path: str, python: "AstModule", reading: "AstModule | None", *, project=None, world=None,
                 callsite_facts: dict | None = None, cells: bool = False, error_cells: frozenset[int] = frozenset(),
                 unsafe_fixes: bool = False, unsafe_units: frozenset[str] | None = None,
                 withheld_units: frozenset[str] = frozenset(), proven_units: frozenset[str] = frozenset(),
                 evidence: dict[int, str] | None = None) -> None:
        self.path, self.python, self.reading = path, python, reading
        self.evidence = evidence or {}  # line of a def -> what a profile run saw (`profile --fix`)
        self.project, self.world = project, world
        self.callsite_facts = callsite_facts or {}
        self.cells, self.error_cells = cells, error_cells
        self.unsafe_fixes, self.unsafe_units = unsafe_fixes, unsafe_units
        self.withheld_units, self.proven_units = withheld_units, proven_units
        self.findings: list[Finding] = []
        self.planned: list[tuple[Finding, PlannedFix]] = []  # the enabled fixes, to be written on libcst

    def policy_code(self) -> str:
        return self.python.code

    @classmethod
    def beside(cls, context: "FileContext") -> "AstFile":
        """The file a libcst pass reads (`context`), with the readings it has already made of it."""
        analysis = context.analysis
        python = analysis.python
        found = cls(context.path, python, python if python.tree is not None else analysis.lowered, project=context.project,
                    world=context.world, callsite_facts=context.callsite_facts, cells=context.cells,
                    error_cells=context.error_cells, unsafe_fixes=context.unsafe_fixes, unsafe_units=context.unsafe_units,
                    withheld_units=context.withheld_units, proven_units=context.proven_units, evidence=context.evidence)
        found.__dict__.update(suppressions=context.suppressions, reachability=analysis.reachability, reserved=analysis.reserved,
                              testcode=analysis.testcode, units=context.units if "units" in context.__dict__ else None)
        if found.__dict__["units"] is None:
            del found.__dict__["units"]
        if context.cells:
            found.__dict__["line_map"] = context.line_map
        return found

    @cached_property
    def reserved(self) -> set[str]:
        """Names handed out by `fresh_name` in this pass (beside libcst rules: theirs too, one set)."""
        return set()

    def fresh_name(self, base: str) -> str:
        """`base`, or `base_2`, `base_3`...: a name spelled nowhere in the module nor handed out in this pass
        (ModuleAnalysis.fresh_name)."""
        from .analysis.testcode import fresh_name

        return fresh_name(base, self.identifiers, self.reserved)

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """The names spelled in the module, which a new name must avoid: a lowered reading's (lowering.py),
        and the names it blanked (a newer grammar's type parameters), read off the file's tokens."""
        reading = self.reading
        assert reading is not None
        if reading is self.python:
            return reading.identifiers
        try:
            tokens = tokenize.generate_tokens(io.StringIO(self.python.code, newline=None).readline)
            return reading.identifiers | {t.string for t in tokens if t.type == tokenize.NAME}
        except (tokenize.TokenError, SyntaxError):
            return reading.identifiers

    def imported_factory(self, func: ast.expr):
        """The project's fact (RemoteFactory) about the function a callee names, when it is a name imported
        from another module (and bound nothing else here) whose function builds a new function on every
        call; None otherwise."""
        if not self.project or type(func) is not ast.Name:
            return None
        found = self.project.factory(func.id)
        if found is None:
            return None
        assignments = self.names.assignments(func)
        if len(assignments) != 1 or type(next(iter(assignments))).__name__ != "ImportAssignment":
            return None  # a local of the same name, or rebound: not the imported factory
        return found

    @cached_property
    def suppressions(self):
        from .suppressions import Suppressions

        return Suppressions.from_source(self.python.code)

    @cached_property
    def reachability(self):
        from .analysis.reachability import Reachability

        return Reachability(self.python, self.world.targets if self.world is not None else None)

    @cached_property
    def testcode(self):
        from .analysis.testcode import TestCode

        return TestCode(self.python, self.path, self.error_cells)

    @property
    def open_module(self) -> str:
        return self.world.open_module if self.world is not None else ""

    @cached_property
    def jit(self):
        """The jit contexts (ast_jit.JitAnalysis), with what the rest of the project traces in this file."""
        from .analysis.ast_jit import JitAnalysis

        assert self.reading is not None
        if self.project is None and not self.open_module:
            return self.reading.jit
        return JitAnalysis(self.reading.names, self.project, self.open_module)

    @cached_property
    def traced(self):
        """The traced values (ast_flow.TracedAnalysis) of what the rules read."""
        from .analysis.ast_flow import TracedAnalysis

        return TracedAnalysis(self.reading, self.jit, self.callsite_facts, self.project, self.open_module,
                              line_label=self.line_label)

    def code(self, node: ast.AST) -> str:
        """The code of `node` as libcst's `code_for_node` writes it (FileContext.code): as written, its lines
        after the first without the indentation of the block it is in (libcst writes a node outside its
        blocks), except inside a string."""
        reading = self.reading
        assert reading is not None
        return self._outside_blocks(node, reading.text(node))

    def code_parenthesized(self, node: ast.expr) -> str:
        """`code(node)` with the parentheses libcst gives the node's twin (`lpar`/`rpar`): those that enclose
        it alone, `(x > 0)` in `if (x > 0):`; not a call's or a class's that hold it as their only argument."""
        if not self.parentheses(node):
            return self.code(node)
        return self._outside_blocks(node, self.source_between(*self.parenthesized_span(node)))

    def parenthesized_span(self, node: ast.expr) -> tuple[tuple[int, int], tuple[int, int]]:
        """Where `node` starts and ends with its own parentheses (`parentheses`): lines, columns in characters."""
        reading = self.reading
        assert reading is not None
        start, end = reading.start(node), reading.end(node)
        pairs = self.parentheses(node)
        if not pairs:
            return start, end
        tokens = self._significant_tokens
        return tokens[self._token_at[start] - pairs][0], tokens[self._token_ending[end] + pairs][1]

    def with_comma(self, node: ast.AST) -> str:
        """The code of `node` and the comma after it, if one follows: libcst's Arg or Element, which holds its comma."""
        reading = self.reading
        assert reading is not None
        start, end = self.parenthesized_span(node) if isinstance(node, ast.expr) else (reading.start(node), reading.end(node))
        tokens = self._significant_tokens
        following = self._token_ending.get(end)
        if following is not None and following + 1 < len(tokens) and tokens[following + 1][2] == ",":
            end = tokens[following + 1][1]
        return self._outside_blocks(node, self.source_between(start, end))

    def source_between(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        """The text between two places (lines, columns in characters)."""
        reading = self.reading
        assert reading is not None
        (line, column), (end_line, end_column) = start, end
        if line == end_line:
            return reading.lines[line - 1][column:end_column]
        return "\n".join([reading.lines[line - 1][column:], *reading.lines[line:end_line - 1],
                          reading.lines[end_line - 1][:end_column]])

    def string_pieces(self, value: ast.Constant) -> int:
        """How many string literals `value` is written as (AstModule.string_pieces)."""
        reading = self.reading
        assert reading is not None
        return reading.string_pieces(value)

    def tuple_parenthesized(self, node: ast.Tuple) -> bool:
        """The tuple is written in parentheses of its own (AstModule.parenthesized)."""
        reading = self.reading
        assert reading is not None
        return reading.parenthesized(node)

    def parentheses(self, node: ast.expr) -> int:
        """How many pairs of parentheses around `node`'s span enclose it alone, less a call's or a class's
        that hold it as their only argument: libcst's `lpar`, but for the nodes whose span `ast` draws with
        a pair (a parenthesized tuple: `tuple_parenthesized`; a generator, the only argument of a call), and
        an f-string's fields (one token on 3.11: none found). Read off the tokens, made only when a rule asks."""
        reading = self.reading
        assert reading is not None
        tokens = self._significant_tokens
        first, last = self._token_at.get(reading.start(node)), self._token_ending.get(reading.end(node))
        if first is None or last is None:
            return 0
        pairs = 0
        while first - pairs > 0 and last + pairs + 1 < len(tokens) and tokens[first - pairs - 1][2] == "(" \
                and tokens[last + pairs + 1][2] == ")":
            pairs += 1
        parent = self.names.parent(node)
        if pairs and isinstance(parent, (ast.Call, ast.ClassDef)) and self._holder_pair(parent, first - pairs):
            pairs -= 1  # the outer pair is the call's (the class's)
        return pairs

    def _holder_pair(self, parent: ast.Call | ast.ClassDef, opening: int) -> bool:
        """The `(` at token `opening` opens the argument list of the call (the class) `parent`: right after
        its callee (its name)."""
        tokens = self._significant_tokens
        if isinstance(parent, ast.Call):
            reading = self.reading
            assert reading is not None
            return self._token_ending.get(reading.end(parent.func)) == opening - 1
        return opening >= 2 and tokens[opening - 1][2] == parent.name and tokens[opening - 2][2] == "class"

    @cached_property
    def _significant_tokens(self) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
        """The tokens of what the rules read, but comments, line breaks and indentation: (start, end, string),
        columns in characters. Made only when a rule quotes code in parentheses."""
        reading = self.reading
        assert reading is not None
        skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                   tokenize.ENCODING, tokenize.ENDMARKER}
        try:
            return [(t.start, t.end, t.string) for t in tokenize.generate_tokens(io.StringIO(reading.code, newline=None).readline)
                    if t.type not in skipped]
        except (tokenize.TokenError, SyntaxError):
            return []

    @cached_property
    def _token_at(self) -> dict[tuple[int, int], int]:
        return {token[0]: i for i, token in enumerate(self._significant_tokens)}

    @cached_property
    def _token_ending(self) -> dict[tuple[int, int], int]:
        return {token[1]: i for i, token in enumerate(self._significant_tokens)}

    def _outside_blocks(self, node: ast.AST, text: str) -> str:
        """`text`, the code of `node`, as libcst writes a node outside its blocks (`code`)."""
        reading = self.reading
        assert reading is not None
        if "\n" not in text:
            return text
        statement = node
        while statement is not None and not isinstance(statement, ast.stmt):
            statement = self.names.parent(statement)
        line = reading.lines[(statement or node).lineno - 1]  # type: ignore[attr-defined]
        indent = line[:len(line) - len(line.lstrip())]
        if not indent:
            return text
        lines = text.split("\n")
        inside = _lines_inside_strings(text)
        # A line continued by a backslash keeps its whitespace as written (libcst holds it in one token).
        return "\n".join(part if i == 0 or i in inside or lines[i - 1].endswith("\\") or not part.startswith(indent)
                         else part[len(indent):] for i, part in enumerate(lines))

    @cached_property
    def globals(self):
        """Which module globals are not stable (ast_globals.ModuleGlobals)."""
        from .analysis.ast_globals import ModuleGlobals

        return ModuleGlobals(self.names)

    @property
    def tree(self) -> ast.Module:
        """The tree the rules read (`run_ast_rules` runs them only where there is one)."""
        assert self.reading is not None and self.reading.tree is not None
        return self.reading.tree

    def nodes(self, *kinds: type) -> list[Any]:
        """The nodes of these classes in the tree the rules read, in `ast.walk`'s order (AstModule.nodes)."""
        assert self.reading is not None
        return self.reading.nodes(*kinds)

    @property
    def names(self):
        """The name resolver (ast_resolver.NameResolver) of what the rules read."""
        assert self.reading is not None
        return self.reading.names

    @cached_property
    def line_map(self):
        from .boundaries import LineMap

        return LineMap(self.python.code)

    def line_label(self, line: int) -> str:
        """How a message names a line of this module: `line 12`, or `cell 3, line 4` in a notebook."""
        return self.line_map.label(line) if self.cells else f"line {line}"

    def span(self, node: ast.AST) -> Span:
        """Where libcst places `node`'s twin: where a finding at it is shown."""
        return self.python.place(node)

    def release(self) -> None:
        for module in {id(m): m for m in (self.python, self.reading) if m is not None}.values():
            module.release()


class AstRule(Rule):
    """A rule decided on `ast`: `check` reads `self.file` (an AstFile) and calls `report`. It writes no fix."""

    def __init__(self, file: AstFile) -> None:
        self.file = file

    def check(self) -> None:
        raise NotImplementedError

    def report(
        self,
        node: ast.AST | Span,
        message: str,
        *,
        fix: PlannedFix | None = None,
        hint: str = "",
        note: str = "",
        related: Sequence[Related | tuple[ast.AST | Span, str]] = (),
        severity: Severity | None = None,
        safety: Safety | None = None,
        place: Span | None = None,
    ) -> Finding | None:
        """Record a finding at `node`, as `Codemod.report` does: None if it is suppressed, or in a branch that
        cannot run on the installed versions (analysis/reachability.py). `fix`: its planned fix, refused (a
        note says why) where Codemod.report refuses an edit: code meant to fail, a test reading the structure
        it changes, a function another module jits, and made unsafe in test code (`MOVES_CODE`), in a function
        that may run eagerly, or for a library older than the fixes were checked against. Without a fix,
        `safety` DISPLAY: a fix that is shown, never applied. `place`: where libcst's node is, where it has one
        `ast` has not (a decorator with its `@`), `node` being what it holds."""
        file = self.file
        span = place or (node if isinstance(node, Span) else file.span(node))
        if file.suppressions.is_suppressed(span, self.CODE, self.NAME) or not file.reachability.may_run(span):
            return None
        provable = False
        if fix is not None:
            safety, provable = fix.safety or self.SAFETY, fix.provable
            fix, hint, note, related, safety = self._judged(node, span, fix, hint, note, related, safety)
            provable = fix is not None and fix.provable
        finding = Finding(
            code=self.CODE, name=self.NAME, message=message, path=file.path, span=span,
            severity=severity or self.SEVERITY,
            fix=Fix(safety, fix.description) if fix is not None and safety is not None
            else Fix(Safety.DISPLAY, "") if safety is Safety.DISPLAY else None,
            hint=hint, note=note,
            related=tuple(r if isinstance(r, Related) else Related(r[0] if isinstance(r[0], Span) else file.span(r[0]), r[1])
                          for r in related),
        )
        file.findings.append(finding)
        if fix is not None and safety is not None and file.fix_enabled(safety, span.line, provable):
            file.planned.append((finding, fix))
        return finding

    def _judged(self, node, span: Span, fix: PlannedFix, hint: str, note: str, related, safety: Safety):
        """(the fix or None, hint, note, related, safety) once what refuses or doubts the fix is read (Codemod.report)."""
        file = self.file
        reachability = file.reachability
        if reachability.doubt:  # (a file only a newer Python parses, with compatibility checks)
            return None, hint or fix.description, "; ".join(filter(None, (f"not fixed: {reachability.doubt}", note))), related, None
        refused = self._refusal(node, span, fix) if self.REMOVES_ERRORS or self.CHANGES_STRUCTURE else None
        if refused is not None:
            why, where = refused
            return None, hint, "; ".join(filter(None, (why, note))), (*related, where), safety
        description = fix.description
        if self.MOVES_CODE and safety is Safety.SAFE and file.testcode.in_test(span):
            safety = Safety.UNSAFE
            note = "; ".join(filter(None, (note, "unsafe in test code: tests observe the names, frames and trace caches the move changes")))
            description = f"{description or 'apply the fix'} (unsafe in test code)"
        elsewhere = self._remote("wrapped", node)
        if elsewhere is not None and (why := file.jit.jitted_elsewhere(elsewhere)):
            return None, hint or "rewrite it by hand, or jit a function of that module's own that selects with `where`/`cond`", \
                f"not rewritten: {why}", related, None
        eager = self._remote("called", node)
        if eager is not None and (why := file.jit.eagerly_callable(eager)):
            fix = replace(fix, description=description, provable=False)
            if safety is Safety.SAFE:
                safety = Safety.UNSAFE
                description = f"{description or 'apply the fix'} (unsafe: see the note)"
            note = "; ".join(filter(None, (note, f"unsafe: {why}")))
        if safety is Safety.SAFE and not self.RELEASES_CHECKED and (doubt := self._release_doubt(fix)):
            safety = Safety.UNSAFE
            note = "; ".join(filter(None, (note, f"unsafe: {doubt}")))
        if description != fix.description:
            fix = replace(fix, description=description)
        return fix, hint, note, related, safety

    def _remote(self, how: str, node):
        """The jit context around `node`, when another module traces a function of this file `how`."""
        project = self.file.project
        if isinstance(node, Span) or not project or not any(t.how == how for t in project.traces):
            return None
        return self.file.jit.enclosing_context(node)

    def _refusal(self, node, span: Span, fix: PlannedFix):
        """Why the fix must not be applied here, and the place that says so (Codemod._refusal)."""
        file = self.file
        testcode = file.testcode
        if testcode.expects_failure:
            places: list[tuple[Span, bool]] = [(span, isinstance(node, ast.stmt))]
            places += [(file.span(at), isinstance(at, ast.stmt)) for at in fix.at]
            for where, statement in places:
                expecting = testcode.expected_failure(where, statement)
                if expecting is not None:
                    return f"not fixed: this code is expected to fail: {expecting.how}", (expecting.anchor, "expected to fail here")
        if self.CHANGES_STRUCTURE and testcode.in_test(span):
            read = testcode.structure_read(span, self.CHANGES_STRUCTURE)
            if read is not None:
                who = "this test inspects" if read.test else "the tests of this module inspect"
                return f"not fixed: {who} the structure the fix changes: {read.what}", (read.place, "read here")
        return None

    def _release_doubt(self, fix: PlannedFix) -> str:
        """Why the fix's code may not run on the library releases the project runs (Codemod._release_doubt)."""
        world = self.file.world
        if world is None or not world.targets.found:
            return ""
        from .analysis.compilers import FIXES_NEED, LIBRARY_NAMES

        older = {root: why for root, version in FIXES_NEED.items() if (why := world.targets.at_least(root, version))}
        if not older:
            return ""
        roots = {module.split(".", 1)[0] for module, *_ in fix.imports if module}
        imported = self.file.names.imported
        names = [*fix.spelled, *(n.id for read in fix.reads for n in ast.walk(read) if isinstance(n, ast.Name))]
        for name in names:
            roots |= {q.split(".", 1)[0] for q in imported.get(name, ())}
        named = sorted(roots & older.keys())
        if not named:
            return ""
        root = named[0]
        return f"{older[root]}, and the fix's code was checked against {LIBRARY_NAMES[root]} {FIXES_NEED[root]} or newer"


def decided_on_ast(rule: type) -> bool:
    return isinstance(rule, type) and issubclass(rule, AstRule)


def run_ast_rules(file: AstFile, rules: Sequence[type[AstRule]]) -> list[Finding]:
    """The findings of `rules` in `file` (none where it has no reading: a grammar not even lowering reads);
    the fixes they plan and the settings enable are in `file.planned`."""
    if file.reading is None or file.reading.tree is None:
        return []
    for rule in rules:
        rule(file).check()
    return file.findings


def written(file: AstFile, context) -> list:
    """The fixes `file` planned, written on the libcst tree of `context` (a FileContext of the same source):
    each plan's builder given the libcst twins of the nodes it names. A plan whose node has no twin, or that
    its builder cannot write, is left unwritten (its finding stays, not applied)."""
    from .codemod import ProposedFix

    if not file.planned:
        return []
    locator = locator_for(file, context)
    out = []
    for finding, plan in file.planned:
        twins = [locator.cst_of(node) for node in (*plan.at, *plan.needs)]
        if any(twin is None for twin in twins):
            continue
        edits = plan.build(context, *twins)
        invalidates = locator.cst_of(plan.invalidates) if plan.invalidates is not None else None
        if edits and (plan.invalidates is None or invalidates is not None):
            out.append(ProposedFix(finding, tuple(edits), tuple(plan.imports), invalidates))
    return out


def locator_for(file: AstFile, context):
    """What moves nodes between the libcst tree of `context` and the `ast` tree `file`'s rules read (the
    module, or its lowered twin)."""
    assert file.reading is not None  # (a fix is planned only where a rule read the file)
    return locator_of(context, None if file.reading is file.python else file.reading)


def locator_of(context, lowered: "AstModule | None"):
    """`locator_for` given what the rules read: the module itself (None), or its `lowered` twin."""
    from .analysis.locator import Locator

    analysis = context.analysis
    if lowered is None:
        return analysis.locator
    return Locator(context.module, analysis.names.positions, lowered, analysis.names.parent)


def _lines_inside_strings(text: str) -> set[int]:
    """The lines of `text` (0 first) that begin inside a string literal spanning lines."""
    inside: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO("(" + text + ")").readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                inside.update(range(token.start[0], token.end[0]))  # (1-based rows: the lines after the first)
    except (tokenize.TokenError, SyntaxError):
        pass
    return inside
