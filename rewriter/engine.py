"""One file: pre-filter, parse once, run the enabled codemods together, apply fixes to a fixpoint.

The result is validated before anyone may write it: it must parse, and the last pass over it must
have found nothing left to apply (so a second run of the tool is a no-op by construction).
"""
from __future__ import annotations

import ast
import functools
import io
import os
import threading
import tokenize
import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from .lazy_libcst import cst

from . import cst_tree, kept_parses, newer_syntax
from .boundaries import LineMap, split_leading_lines
from .ast_rule import AstFile, decided_on_ast, run_ast_rules, written
from .codemod import Codemod, FileContext, InsertBefore, ProposedFix, Replace
from .analysis.ast_names import parse as python_parse, words_text
from .analysis.ast_scopes import NotCompilable
from .analysis.positions import statement_outline
from .findings import FileResult, Finding
from .prefilter import filter_codemods, has_gate
from .settings import Settings

MAX_PASSES = 8


class ProcessingError(Exception):
    """A file that cannot be processed; the message names the reason (the caller adds the path)."""


def wanted_codemods(source: bytes, codemods: Iterable[type[Codemod]]) -> list[type[Codemod]]:
    """The cheap pre-filter: codemods whose trigger words all appear somewhere in the raw bytes (each
    word searched for once: rules share many)."""
    words = TriggerWords(source)
    return [cm for cm in codemods if words.wanted(cm)]


class TriggerWords:
    """Which rules' trigger words one file's bytes hold, each word searched for once and only when
    asked: a word the file lacks costs a search of all of it (rewriter/survey.py asks only of the rules
    the ast pre-filter lets through)."""

    def __init__(self, source: bytes) -> None:
        # The bytes, and the source as CPython reads its names where that differs (a full-width `ｊit`,
        # a utf-7 file: ast_names.words_text): a rule's word in a name is found.
        self.source = words_text(source)
        self.present: dict[bytes, bool] = {}
        self._wanted: dict[type, bool] = {}  # by rule: the survey asks of a rule more than once

    def has(self, word: bytes) -> bool:
        found = self.present.get(word)
        if found is None:
            found = self.present[word] = word in self.source
        return found

    def wanted(self, codemod: type[Codemod]) -> bool:
        found = self._wanted.get(codemod)
        if found is None:
            found = self._wanted[codemod] = any(all(map(self.has, group)) for group in _trigger_bytes(codemod))
        return found

    def any_wanted(self, codemods: Iterable[type[Codemod]]) -> bool:
        """Whether some of `codemods` is wanted, asked of those with the fewest words first: the same
        answer in any order, and a word the file lacks costs a search of all of it (a migration rule
        has dozens of words, a jit rule one or two)."""
        return any(map(self.wanted, sorted(codemods, key=_word_count)))


_TRIGGER_BYTES: dict[type, tuple[tuple[bytes, ...], ...]] = {}


def _trigger_bytes(codemod: type[Codemod]) -> tuple[tuple[bytes, ...], ...]:
    """`TRIGGERS` as groups of encoded words (a bare word is a group of one; no triggers: one empty group)."""
    try:
        return _TRIGGER_BYTES[codemod]
    except KeyError:
        groups = codemod.TRIGGERS or ((),)
        found = _TRIGGER_BYTES[codemod] = tuple(tuple(w.encode() for w in ((g,) if isinstance(g, str) else g)) for g in groups)
        return found


def _word_count(codemod: type[Codemod]) -> int:
    return sum(map(len, _trigger_bytes(codemod)))


def warm(codemods: Iterable[type[Codemod]]) -> None:
    """Build the tables a file's processing builds on first use (cst_tree.warm: every node class's
    child readers, and the hooks of `codemods`), before worker processes are forked to process files:
    each inherits them instead of building its own."""
    cst_tree.warm(list(codemods))


def parse(source: bytes) -> cst.Module:
    """libcst's parse, with CPython's own words for why a file cannot be read."""
    return parse_with_note(source)[0]


def decoded(source: bytes) -> str:
    """The text of `source`, decoded as CPython would (its coding cookie, else UTF-8); ProcessingError naming
    why it cannot be."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except SyntaxError as e:  # unknown coding cookie, or bytes that are not UTF-8 and no cookie
        reason = str(e.msg if hasattr(e, "msg") else e)
        if reason.startswith("invalid or missing encoding declaration"):
            reason = "not valid UTF-8, and no encoding declaration"
        raise ProcessingError(f"cannot decode: {reason}") from None
    except UnicodeDecodeError as e:
        raise ProcessingError(f"cannot decode as {e.encoding}: {e.reason} at byte {e.start}") from None


def parse_with_note(source: bytes, python_parsed: bool = False, cells: bool = False) -> tuple[cst.Module, str | None]:
    """libcst's parse, with CPython's own words for why a file cannot be read, and a note when only
    a newer Python's grammar reads it (rewriter/newer_syntax.py: such files are analysed). `cells`: the
    source is a notebook's joined cells, whose lines the note names by cell (boundaries.LineMap).

    The caller has already refused binary (NUL) input. CPython parses first: it is cheap, it turns
    inputs that would crash libcst's native parser into an error, and its syntax messages are the
    ones users know. `python_parsed`: CPython has parsed these very bytes already (the run's survey).
    """
    text = decoded(source)
    py_error: SyntaxError | None = None
    try:
        if not python_parsed:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(source)
    except (RecursionError, MemoryError):  # libcst's native parser would crash (segfault) on these
        raise ProcessingError("too deeply nested for Python's own parser") from None
    except SyntaxError as e:
        py_error = e
    except ValueError:
        pass  # libcst reports it below
    if py_error is not None:
        found = newer_syntax.read(source, py_error, LineMap(text).label if cells else None)
        if found is None:
            raise ProcessingError(f"syntax error at line {py_error.lineno}, column {py_error.offset}: {py_error.msg}")
        module, construct = found
        return module, newer_syntax.note(construct)
    try:
        return cst.parse_module(source), None
    except (cst.ParserSyntaxError, SyntaxError, ValueError) as e:
        raise ProcessingError(f"libcst cannot parse this file: {str(e).splitlines()[0]}") from None


def process_source(source: bytes, path: str, settings: Settings) -> FileResult:
    """Run every enabled codemod on one file's bytes. Never raises for bad input: sets `error`."""
    result = FileResult(path=path, old_source=source)
    if b"\x00" in source:
        result.error = "binary file (contains NUL bytes)"
        return result
    tree = None
    if settings.first_pass is not None:
        codemods = [c for c in settings.codemods if c.CODE in settings.first_pass]
        outline = settings.outline
        tree = kept_parses.take(source) if codemods else None  # (the survey's, when it ran here)
    else:
        codemods, tree = _judged(source, settings)
        outline = _outline(tree)
    if not codemods:
        result.skipped = True
        return result
    try:
        read = _read_alone(source, path, codemods, settings, tree)
    except ProcessingError as e:
        result.error = str(e)
        return result
    reports_only = not settings.rewrite and settings.original_positions  # (--check: one pass, over the original)
    if read is not None:  # libcst parses the file only to write a fix
        findings, note, planned = _findings_on_ast(*read, settings)
        if reports_only and planned and settings.apply_fixes and settings.masked_ipython:
            reports_only = False  # whether those lines come out as they were is known only from the rewrite
        if not planned or reports_only or not settings.apply_fixes:
            for finding in findings:
                finding.applied = id(finding) in planned and settings.apply_fixes and reports_only
            result.findings, result.would_change = findings, any(f.applied for f in findings)
            result.notes.extend(filter(None, [note]))
            return result
    try:
        # A first pass from the survey, or an outline of the pre-filter's parse, means CPython parsed
        # these bytes (runner.process_files): it need not say again why it cannot.
        module, note = parse_with_note(source, python_parsed=settings.first_pass is not None or outline is not None,
                                       cells=settings.cells)
        result.libcst_parsed = True
        if reports_only and settings.apply_fixes and not settings.masked_ipython:  # (see above)
            result.findings = _findings_in_original(module, path, codemods, settings, source, outline)
            result.would_change = any(f.applied for f in result.findings)
            new_module = None
        else:
            result.findings, new_module = _fixpoint(module, path, codemods, settings, source, outline)
    except ProcessingError as e:
        result.error = str(e)
        return result
    if note:
        result.notes.append(note)
    if settings.original_positions and new_module is not None:
        result.findings = _findings_in_original(module, path, codemods, settings, source, outline)
    if new_module is not None:
        new_source = new_module.bytes
        if new_source != source:
            try:
                _validate(new_source, path)
            except ProcessingError as e:
                result.error = str(e)
                return result
            result.new_source = new_source
    return result


@dataclass
class Pass:
    """One report pass over a source, kept so that its fixes can be applied one at a time.

    Editors ask for one finding's fix (a quick fix) after showing the findings: the pass proposes
    every enabled fix, and `apply` writes any subset of them into the original, exactly as the
    first fixpoint pass of `process_source` would.
    """

    findings: list[Finding]
    fixes: dict[int, ProposedFix]  # id(finding) -> its enabled fix
    context: FileContext | None  # None: the pre-filter proved there is nothing to find, or not parsed yet
    _segment_cache: dict[int, str] | None = None
    # A pass of rules all decided on `ast` (`read`: the AstFile they read): its fixes are planned, and
    # libcst parses the source (`write`) only when a fix is asked for.
    read: AstFile | None = None
    write: "Callable[[], FileContext] | None" = None

    _writing: threading.Lock = field(default_factory=threading.Lock)  # (the server asks on two threads)

    def fix_for(self, finding: Finding) -> ProposedFix | None:
        if self.write is not None and self._planned(finding):
            with self._writing:
                if self.write is not None:
                    self._written()
        return self.fixes.get(id(finding))

    def has_fix(self, finding: Finding) -> bool:
        """Whether the finding has an enabled fix: where it is only planned, without writing it."""
        if self.write is not None:
            return self._planned(finding)
        return id(finding) in self.fixes

    def _planned(self, finding: Finding) -> bool:
        return self.read is not None and any(f is finding for f, _ in self.read.planned)

    @property
    def has_fixes(self) -> bool:
        return bool(self.fixes) or self.read is not None and bool(self.read.planned)

    def facts_found(self) -> tuple:
        """What the calls in the source say about its jitted functions' parameters (Settings.callsite_facts)."""
        if self.read is not None:
            return self.read.traced.facts_found() if self.read.jit.contexts else ()
        if self.context is None:
            return ()
        file = AstFile.beside(self.context)  # (libcst rules read the file: the same reading, on `ast`)
        if file.reading is None or file.reading.tree is None or not file.jit.contexts:
            return ()
        return file.traced.facts_found()

    def _written(self) -> None:
        """The libcst pass of the same rules, its fixes given to the findings shown (the same findings: the
        rules read the same source the same way)."""
        assert self.write is not None
        context, self.write = self.write(), None
        self.context = context
        by_key = {_finding_key(fix.finding): fix for fix in context.fixes}
        self.fixes = {id(f): by_key[_finding_key(f)] for f in self.findings if _finding_key(f) in by_key}

    def apply(self, fixes: Sequence[ProposedFix]) -> str:
        """The original's code with `fixes` applied (fixes of one pass that do not overlap, e.g. one alone).

        Only the top-level statements a fix rebuilt are generated again; the others keep the code
        they had, so one fix in a long file costs about what its statements cost.
        """
        assert self.context is not None
        original = self.context.wrapper.module
        module = _apply(self.context.wrapper, fixes, self.context.analysis.names)
        if _same_nodes(module.header, original.header) and _same_nodes(module.footer, original.footer) \
                and original.has_trailing_newline and module.has_trailing_newline and original.body:
            segments = self._segments()
            parts = [segments[id(h)] for h in original.header]
            parts += [segments.get(id(stmt)) or module.code_for_node(stmt) for stmt in module.body]
            parts += [segments[id(f)] for f in original.footer]
            code = "".join(parts)
        else:
            code = module.code
        _validate(code, self.context.path)
        return code

    def _segments(self) -> dict[int, str]:
        """The code of each original top-level node (header, statements, footer), by id."""
        if self._segment_cache is None:
            original = self.context.wrapper.module
            self._segment_cache = {id(n): original.code_for_node(n) for n in (*original.header, *original.body, *original.footer)}
        return self._segment_cache


def _same_nodes(a: Sequence[cst.CSTNode], b: Sequence[cst.CSTNode]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def report_pass(source: bytes, path: str, settings: Settings) -> Pass:
    """Findings at their places in `source`, with the fixes `settings` enables; raises ProcessingError."""
    if b"\x00" in source:
        raise ProcessingError("binary file (contains NUL bytes)")
    codemods, tree = _judged(source, settings)
    if not codemods:
        return Pass([], {}, None)
    read = _read_alone(source, path, codemods, settings, tree)
    if read is not None:  # an editor's pass parses libcst only for a quick fix
        file, _ = read
        return Pass(file.findings, {}, None, read=file,
                    write=lambda: _run_codemods(parse(source), path, codemods, settings, source))
    context = _run_codemods(parse(source), path, codemods, settings, source)
    return Pass(context.findings, {id(fix.finding): fix for fix in context.fixes}, context)


def _finding_key(finding: Finding) -> tuple:
    return finding.code, finding.span, finding.message, finding.note


def _candidates(source: bytes, settings: Settings) -> list[type[Codemod]]:
    """The codemods the pre-filters let through for this source, judged with the project's facts."""
    return _judged(source, settings)[0]


def _judged(source: bytes, settings: Settings) -> tuple[list[type[Codemod]], ast.Module | None]:
    """`_candidates`, and CPython's parse of the source if judging them parsed it: the rules on `ast`
    read that tree, and libcst's pass its outline (`_outline`), instead of parsing it again."""
    codemods = wanted_codemods(source, settings.codemods)
    enabled = enabled_by_project(settings)
    if enabled:  # without the trigger words: a helper traced from another module need not spell `jit`
        codemods = [c for c in settings.codemods if c in codemods or c in enabled]
    tree = None
    if codemods and settings.ast_prefilter:
        if any(map(has_gate, codemods)):
            tree = kept_parses.take(source) or python_parse(source)
        codemods = filter_codemods(source, codemods, settings.project, tree=tree, roles_given=bool(settings.callsite_facts),
                                   package=getattr(settings.world, "package", ""))
    return codemods, tree


def _outline(tree: ast.Module | None) -> tuple | None:
    """positions.statement_outline of a parse at hand: where statements start, not parsed twice."""
    return statement_outline(tree.body) if tree is not None else None


def enabled_by_project(settings: Settings) -> list[type[Codemod]]:
    """The selected rules that facts from other modules can make fire in a file that does not spell
    their trigger words (`Codemod.PROJECT_FACTS`; call evidence only matters for a jit function of the
    file: it spells them)."""
    if not settings.project:
        return []
    kinds = settings.project.kinds()
    if "renames" in kinds:  # an API under a name the words of the file may not spell: its pre-filter judges
        return [c for c in settings.codemods if not c.PROJECT_FACTS.isdisjoint(kinds) or has_gate(c)]
    return [c for c in settings.codemods if not c.PROJECT_FACTS.isdisjoint(kinds)]


def _fixpoint(
    module: cst.Module, path: str, codemods: Sequence[type[Codemod]], settings: Settings, source: bytes | None = None,
    outline: tuple | None = None,
) -> tuple[list[Finding], cst.Module | None]:
    """`outline`: positions.statement_outline of CPython's parse of `source`, when at hand."""
    applied: list[Finding] = []
    changed = False
    for _ in range(MAX_PASSES):
        context = _run_codemods(module, path, codemods, settings, source, outline)
        try:
            _place_in_cells(context)
            if not settings.apply_fixes or not context.fixes:
                done = {id(f) for f in applied}
                return applied + [f for f in context.findings if id(f) not in done], module if changed else None
            accepted = _accept_non_conflicting(context)
            module = _apply(context.wrapper, accepted, context.analysis.names)
        finally:
            context.release()
        for fix in accepted:
            fix.finding.applied = True
            applied.append(fix.finding)
        changed = True
        # A rewrite can create a candidate for another rule (a rename that makes a call PML101's):
        # the next pass filters the new code afresh, exactly as a second run of the tool would.
        source = module.bytes
        codemods, tree = _judged(source, settings)
        outline = _outline(tree)
    raise ProcessingError(
        f"the rewrite did not reach a fixpoint after {MAX_PASSES} passes (a bug in phiml-rewrite: please report it)"
    )


def _findings_in_original(module: cst.Module, path: str, codemods, settings: Settings,
                          source: bytes | None = None, outline: tuple | None = None) -> list[Finding]:
    """One report-only pass over the original: what ruff's check mode shows. A finding whose fix is
    enabled is marked applied ("would be fixed"); findings that only later passes reveal are not shown."""
    context = _run_codemods(module, path, codemods, settings, source, outline)
    try:
        _place_in_cells(context)
        enabled = {id(fix.finding) for fix in context.fixes}
        for finding in context.findings:
            finding.applied = id(finding) in enabled
        return context.findings
    finally:
        context.release()


def _read_alone(source: bytes, path: str, codemods, settings: Settings,
                tree: ast.Module | None = None) -> tuple[AstFile, str | None] | None:
    """The file read on `ast` by its rules decided there (`_read_on_ast`), when that is all it takes: every
    other rule proves on the same reading that it reports nothing (`Codemod.may_report`). None: libcst
    must read it, and the rules are run there instead. `tree`: CPython's parse of `source`, when at hand."""
    on_ast = [c for c in codemods if decided_on_ast(c)]
    rest = [c for c in codemods if not decided_on_ast(c)]
    if not all(map(_may_tell, rest)):
        return None
    file, note = _ast_file(source, path, settings, tree)
    for codemod in rest:
        try:
            absent = codemod.may_report(file) is False
        except Exception:  # (the libcst pass runs the rule, and says what went wrong there)
            absent = False
        if not absent:
            file.release()
            return None
    _run_on_ast(file, on_ast)
    return file, note


def _may_tell(codemod: type[Codemod]) -> bool:
    return codemod.may_report.__func__ is not Codemod.may_report.__func__


def _findings_on_ast(file: AstFile, note: str | None, settings: Settings) -> tuple[list[Finding], str | None, set[int]]:
    """The findings of the rules that read `file` on `ast` (`_read_alone`), the note of a newer Python's
    grammar, and the ids of the findings whose fix is planned and enabled."""
    try:
        if settings.cells:
            for finding in file.findings:
                file.line_map.place(finding)
    finally:
        file.release()
    return file.findings, note, {id(finding) for finding, _ in file.planned}


def _read_on_ast(source: bytes, path: str, rules, settings: Settings) -> tuple[AstFile, str | None]:
    """The file, read on `ast` by `rules` (its findings and planned fixes), and the note of a newer
    Python's grammar; raises ProcessingError. The caller releases the file."""
    file, note = _ast_file(source, path, settings)
    _run_on_ast(file, rules)
    return file, note


def _ast_file(source: bytes, path: str, settings: Settings,
              tree: ast.Module | None = None) -> tuple[AstFile, str | None]:
    """The file as the rules on `ast` read it, and the note of a newer Python's grammar; raises
    ProcessingError. A file CPython cannot read is parsed by libcst to say why, or to lower what a newer
    grammar wrote (analysis/lowering.py). `tree`: CPython's parse of `source`, when at hand."""
    from .analysis.aliases import NO_ALIASES
    from .analysis.ast_module import AstModule
    from .analysis.lowering import lowered

    world, project = settings.world, settings.project
    package = getattr(world, "package", "")
    aliases = project.alias_map() if hasattr(project, "alias_map") else NO_ALIASES
    own_copies = world.targets.own_copies() if world is not None else frozenset()
    python = AstModule(decoded(source), package, aliases, own_copies, tree)
    reading: AstModule | None = python
    note = None
    if python.tree is None:
        module, note = parse_with_note(source, cells=settings.cells)  # (raises with CPython's words unless a newer grammar reads it)
        code = lowered(module)
        reading = AstModule(code, package, aliases, own_copies) if code is not None else None
    file = AstFile(path, python, reading, project=project, world=world, callsite_facts=dict(settings.callsite_facts),
                   cells=settings.cells, error_cells=settings.error_cells, unsafe_fixes=settings.unsafe_fixes,
                   unsafe_units=settings.unsafe_units, withheld_units=settings.withheld_units,
                   proven_units=settings.proven_units, evidence=_evidence_for(path, settings.runtime_evidence))
    return file, note


def _run_on_ast(file: AstFile, rules) -> None:
    """`rules` read `file` (ast_rule.run_ast_rules); raises ProcessingError, the file released."""
    try:
        run_ast_rules(file, rules)
    except RecursionError:
        file.release()
        raise ProcessingError("nesting too deep to analyse") from None
    except NotCompilable as e:
        file.release()
        raise ProcessingError(f"syntax error at line {e.lineno}, column {e.offset}: {e.msg}") from None
    except Exception as e:  # a rule's bug must not take the other files down with it
        file.release()
        raise ProcessingError(f"internal error ({type(e).__name__}: {e}); please report it") from e


def _place_in_cells(context: FileContext) -> None:
    """In a notebook's joined cells, each finding gets its cell and its line in the cell now, against
    the module of its own pass: a fix of an earlier cell moves the lines of every later pass."""
    if context.cells:
        for finding in context.findings:
            context.line_map.place(finding)


def _evidence_for(path: str, evidence: tuple[tuple[str, int, str], ...]) -> dict[int, str]:
    if not evidence:
        return {}
    real = os.path.realpath(path)
    return {line: text for file, line, text in evidence if file == real}


def _run_codemods(module: cst.Module, path: str, codemods: Sequence[type[Codemod]], settings: Settings,
                  source: bytes | None = None, outline: tuple | None = None) -> FileContext:
    """`source`: the bytes `module` was parsed from, if at hand (its comments are read without a code
    generation); `outline`: positions.statement_outline of CPython's parse of them, if at hand."""
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    context = FileContext(
        path=path,
        wrapper=wrapper,
        source=source,
        unsafe_fixes=settings.unsafe_fixes,
        unsafe_units=settings.unsafe_units,
        withheld_units=settings.withheld_units,
        proven_units=settings.proven_units,
        evidence=_evidence_for(path, settings.runtime_evidence),
        callsite_facts=dict(settings.callsite_facts),
        cells=settings.cells,
        error_cells=settings.error_cells,
        project=settings.project,
        world=settings.world,
        outline=outline,
    )
    parents: dict[int, cst.CSTNode] = {}
    # The order of the one traversal, explicit: the walk records each node's parent before any visitor
    # sees it (the name resolver answers `parent` from them: cheaper than libcst's ParentNodeProvider,
    # a second pass over the tree); then the codemods on libcst, which report and never depend on one
    # another.
    context.analysis.names.tracked_parents = parents
    visitors = [cm(context) for cm in codemods if not decided_on_ast(cm)]
    try:
        cst_tree.visit_batched(module, visitors, parents=parents, visiting=context.analysis.names.visiting)
    except RecursionError:
        raise ProcessingError("nesting too deep to analyse") from None
    except Exception as e:  # a codemod bug must not take the other files down with it
        raise ProcessingError(
            f"internal error ({type(e).__name__}: {e}); the file was left unchanged, please report it"
        ) from e
    on_ast = [cm for cm in codemods if decided_on_ast(cm)]
    if on_ast:
        try:
            beside = AstFile.beside(context)
            context.findings += run_ast_rules(beside, on_ast)
            planned = written(beside, context)
            if planned:  # in the rules' order, as libcst rules report theirs: it picks which of two overlapping fixes goes first
                context.fixes = sorted(context.fixes + planned, key=lambda fix: fix.finding.code)
        except RecursionError:
            raise ProcessingError("nesting too deep to analyse") from None
        except Exception as e:
            raise ProcessingError(
                f"internal error ({type(e).__name__}: {e}); the file was left unchanged, please report it"
            ) from e
    return context


def _accept_non_conflicting(context: FileContext) -> list[ProposedFix]:
    """Fixes whose edits do not overlap an earlier accepted fix; the rest wait for the next pass.

    A fix is atomic: all of its edits are applied or none. Two replacements conflict when one target
    contains the other; an insertion conflicts with a replacement of its anchor or of an ancestor.
    """
    names = context.analysis.names

    def with_ancestors(node: cst.CSTNode) -> set[int]:
        out = set()
        while node is not None:
            out.add(id(node))
            node = names.parent(node)
        return out

    replaced: set[int] = set()  # ids of accepted replacement targets
    replaced_lineage: set[int] = set()  # ids of those targets and all their ancestors
    anchors_lineage: list[set[int]] = []
    invalidated: set[int] = set()  # functions whose analysis an accepted fix changes
    accepted = []
    # Fixes that change a function's analysis (a parameter made static) go first; the fixes inside
    # that function then wait for the next pass, which judges them on one consistent view.
    ordered = sorted(context.fixes, key=lambda f: f.invalidates is None)
    for fix in ordered:
        ok = True
        for edit in fix.edits:
            node = edit.target if isinstance(edit, Replace) else edit.anchor
            if fix.invalidates is None and invalidated and with_ancestors(node) & invalidated and id(node) not in invalidated:
                ok = False
            if isinstance(edit, Replace):
                lineage = with_ancestors(edit.target)
                if lineage & replaced or id(edit.target) in replaced_lineage:
                    ok = False
                if any(id(edit.target) in a for a in anchors_lineage):
                    ok = False
            elif with_ancestors(edit.anchor) & replaced:
                ok = False
        if not ok:
            continue
        accepted.append(fix)
        if fix.invalidates is not None:
            invalidated.add(id(fix.invalidates))
        for edit in fix.edits:
            if isinstance(edit, Replace):
                replaced.add(id(edit.target))
                replaced_lineage |= with_ancestors(edit.target)
            else:
                anchors_lineage.append(with_ancestors(edit.anchor))
    return accepted


@functools.cache
def _edit_applier() -> type:
    """The class below, made once libcst is imported (lazy_libcst)."""

    class EditApplier(cst.CSTTransformer):
        """Applies the edits; only subtrees that hold an edited node are visited (the rest is shared).

        A quick fix in an editor changes one place of a long file: walking only the paths down to its
        nodes makes applying it cost the depth of the tree rather than its size.
        """

        def __init__(self, fixes: Sequence[ProposedFix], names=None) -> None:
            super().__init__()
            self.replace: dict[int, cst.CSTNode] = {}
            self.insert: dict[int, list[cst.BaseStatement]] = {}
            edited: list[cst.CSTNode] = []
            for fix in fixes:
                for edit in fix.edits:
                    if isinstance(edit, Replace):
                        self.replace[id(edit.target)] = edit.new
                        edited.append(edit.target)
                    elif isinstance(edit, InsertBefore):
                        self.insert.setdefault(id(edit.anchor), []).extend(edit.statements)
                        edited.append(edit.anchor)
            self.paths = _paths_to(edited, names) if names is not None else None

        def on_visit(self, node) -> bool:
            return self.paths is None or id(node) in self.paths

        def on_leave(self, original_node, updated_node):
            key = id(original_node)
            result = self.replace.get(key, updated_node)
            extra = self.insert.get(key)
            if extra:
                result, extra = _below_cell_marker(result, extra)
                if isinstance(result, cst.FlattenSentinel):
                    return cst.FlattenSentinel([*extra, *result.nodes])
                if isinstance(result, cst.RemovalSentinel):
                    return cst.FlattenSentinel(extra)
                return cst.FlattenSentinel([*extra, result])
            return result

    return EditApplier


def _below_cell_marker(statement, extra: list[cst.BaseStatement]):
    """Statements inserted before a notebook cell's first statement go below the cell's marker."""
    lines = getattr(statement, "leading_lines", None)
    if not lines:
        return statement, extra
    marker, rest = split_leading_lines(lines)
    if not marker:
        return statement, extra
    first = extra[0]
    if not any(line.comment is None for line in rest) and any(isinstance(s, (cst.FunctionDef, cst.ClassDef)) for s in extra):
        rest = [cst.EmptyLine(), cst.EmptyLine(), *rest]  # the cell's statement now follows a def: PEP 8's two lines
    comments = [line for line in first.leading_lines if line.comment is not None]
    first = first.with_changes(leading_lines=[*marker, *comments])  # at the top of its cell: no blank lines above
    return statement.with_changes(leading_lines=rest), [first, *extra[1:]]


def _paths_to(nodes: Sequence[cst.CSTNode], names) -> set[int] | None:
    """Ids of the nodes and all their ancestors; None if one is not in the traversed tree."""
    tracked = names.tracked_parents
    if tracked is None:
        return None
    out: set[int] = set()
    for node in nodes:
        if id(node) not in tracked:
            return None  # not reached by the shared traversal (the root itself, or a new node)
        while node is not None and id(node) not in out:
            out.add(id(node))
            node = tracked.get(id(node))
    return out


def _apply(wrapper: cst.MetadataWrapper, fixes: Sequence[ProposedFix], names=None) -> cst.Module:
    module = wrapper.module.visit(_edit_applier()(fixes, names))
    imports = [imp for fix in fixes for imp in fix.imports]
    if imports:
        # Imported here: libcst.codemod (and the matchers it loads) is a fifth of a warm run's CPU, and
        # only fixes that need an import use it.
        from libcst.codemod import CodemodContext
        from libcst.codemod.visitors import AddImportsVisitor

        ctx = CodemodContext()
        # Once each: libcst merges an aliased import into an existing `from jax import ...` as often as it is asked.
        for mod, obj, asname in dict.fromkeys(imports):
            AddImportsVisitor.add_needed_import(ctx, mod, obj, asname)
        module = AddImportsVisitor(ctx).transform_module(module)
    return module


def _validate(new_source: bytes | str, path: str) -> None:
    """The rewrite must parse with CPython's own parser, not only with libcst's."""
    try:
        newer_syntax.check(new_source)  # a newer grammar's construct must be one libcst reads
    except SyntaxError as e:
        raise ProcessingError(f"internal error: the rewritten code does not parse ({e.msg} at line {e.lineno})") from None
