"""One `ast` parse of each file per run, for the two things a run first needs of every file.

The project index needs each module's summary (rewriter/project/summary.py) before any file can be
analysed, and the pre-filter needs each file's syntax to decide which rules may fire in it
(rewriter/prefilter.py). Both read the same tree: parsed once here, in the runner's worker
processes, instead of once for the index in the main process and once more for the pre-filter in a
worker. The rules let through are judged without the facts of other modules; a file that turns out
to have such facts is judged again with them (engine._candidates), unless the survey can tell they
change nothing (`Survey.passed_with`: factories elsewhere under names no gate reads). A file some
rule may fire in also takes along where its statements start (`Survey.outline`), so that its
processing, in another worker, need not parse it with CPython again for its findings' positions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from . import kept_parses
from .analysis import apis
from .analysis.aliases import AskedAliases
from .analysis.ast_names import Met
from .analysis.facts import FileFacts
from .analysis.positions import statement_outline
from .codemod import Codemod
from .engine import TriggerWords
from .notebooks import is_notebook
from .prefilter import has_gate, parse, syntax_of
from .project.index import summarize_file
from .project.world import file_package
from .project.summary import Summary


@dataclass(frozen=True)
class Survey:
    """What one parse of a file told the run: its summary, and the rules its pre-filters let through."""
    summary: Summary | None
    # Codes of the rules whose pre-filters the file passes (None: not asked, or not a .py file ast reads).
    first_pass: tuple[str, ...] | None = None
    # When the file's own rules were judged: the rules that facts of factories elsewhere would add to
    # them (`Codemod.PROJECT_FACTS`) and whose pre-filters it passes without those facts, and the
    # names such a factory must bear to change any pre-filter (prefilter.Syntax.factory_sensitive; None:
    # any name, for a file the pre-filter did not walk).
    factory_pass: tuple[str, ...] | None = None
    factory_sensitive: frozenset[str] | None = frozenset()
    # Where the statements of a file some rule may fire in start (positions.statement_outline): the
    # file's processing reads its findings' positions from it instead of parsing the file again.
    outline: tuple | None = None
    # What the first pass's reading asked of aliases it was given none of (aliases.AskedAliases): the
    # names it read through them, and the modules the file imports with `*` (None: not recorded).
    realiased: frozenset[str] | None = None
    star_modules: tuple[str, ...] = ()
    # Some gate read what calls in other modules pass (prefilter.Syntax.reads_call_evidence): without
    # that read, no call evidence changes what the gates let through.
    reads_call_evidence: bool = True

    def passed_with(self, facts: FileFacts | None) -> tuple[str, ...] | None:
        """The rules the pre-filter lets through given the facts other modules give the file
        (engine._candidates), when the survey already knows: with no facts, with factories only, none
        of them named where a gate could notice, or with call evidence no gate read (`calls`:
        `reads_call_evidence`). None: the file must be judged again. (No gate
        reads `python_results` or `classes`: they only make ast_flow.py call static what a gate may call a
        tracer, and forms.py refuse a selection. `aliases` and `reexports` change what the file's names
        denote, for the gates as for the rules: judged again, unless they can only make the gates find
        less (FileFacts.widens_a_gate: NumPy's functions under the project's names), where the first
        judgement is a superset of the second, or where the first judgement read no name they change:
        `_reads_nothing_aliased`.)"""
        if self.first_pass is None or not facts:
            return self.first_pass
        if (facts.aliases or facts.reexports) and facts.widens_a_gate() and not self._reads_nothing_aliased(facts):
            return None
        calls = bool(facts.calls) and self.reads_call_evidence
        if not (facts.traces or calls or facts.factories):
            return self.first_pass
        if facts.traces or calls or self.factory_pass is None:
            return None
        if self.factory_sensitive is None or not self.factory_sensitive.isdisjoint(f.name for f in facts.factories):
            return None
        return self.first_pass + self.factory_pass

    def _reads_nothing_aliased(self, facts: FileFacts) -> bool:
        """The first pass would have read the same with `facts`' aliases: none of them reaches an API, so
        none changes which names may start an API's spelling (FileFacts.aliases_reach_no_api), none is a
        name a `*` import of the file binds (apis.star_target), and no name the reading looked up
        through aliases (`realiased`) is an alias's name or under one. Every question the reading asked
        of the aliases then has the same answer, so every gate has. (Not with factories besides: a
        reading with them may ask what the first did not.)"""
        if self.realiased is None or facts.factories or not facts.aliases_reach_no_api():
            return False
        names = {key for key, _ in facts.aliases}
        if any(key.rpartition(".")[0] in self.star_modules for key in names):
            return False
        return not any(_under_one_of(name, names) for name in self.realiased)


def _under_one_of(name: str, names: set[str]) -> bool:
    """`name` is one of `names` or an attribute chain under one (`a.b.c` under `a.b`)."""
    while True:
        if name in names:
            return True
        name, dot, _ = name.rpartition(".")
        if not dot:
            return False


def survey(job: tuple[str, bytes, Sequence[type[Codemod]] | None]) -> Survey:
    """The summary of the file, and (when `codemods` is given) the rules among them its bytes and
    syntax let through. A module-level function: the process pool pickles it."""
    path, source, codemods = job
    tree = parse(source) if not is_notebook(path) and b"\x00" not in source else None
    kids: dict = {}  # each node's branches, computed by the summary's walk, read by the pre-filter's
    met = Met()  # and what else the pre-filter reads of the nodes it met (ast_names.Met)
    try:
        summary = summarize_file(path, source, tree, kids, met)
    except RecursionError:
        return Survey(None)  # nested too deep to read here: the file's own processing says so
    if codemods is None or tree is None:
        return Survey(summary)
    try:
        found = _first_pass(source, codemods, tree, kids, summary, met, file_package(path))
    except RecursionError:
        return Survey(summary)  # no first pass: judged again where it is processed, and reported there
    if found.outline is not None:  # some rule may fire: its processing, if here, reads this parse
        kept_parses.keep(source, tree)
    return found


def _first_pass(source: bytes, codemods: Sequence[type[Codemod]], tree, kids: dict, summary, met: Met,
                package: str = "") -> Survey:
    """The rules `codemods` the file's bytes and syntax let through (`survey`); `package`: the one its
    relative imports start from (World.package, as the file's processing reads them)."""
    words = TriggerWords(source)
    if not words.any_wanted([c for c in codemods if has_gate(c)]):
        return _words_only(source, codemods, tree, kids, summary, met, package, words)
    asked = AskedAliases()
    syntax = syntax_of(source, None, tree, kids=kids, met=met, package=package, aliases=asked)
    # Each rule's pre-filter first, its words only if that lets it through (the walk is paid already;
    # most of a file's words are absent, and each absent word is a search of the whole file): with
    # them, the rule passes; without, one that facts of factories elsewhere could enable waits for them.
    # In a file whose imports or reads spell no API the walk is not paid (Syntax.spells_no_api): a
    # gate on the walk's facts fails there at once, whatever the words; the words come first, or a
    # gate that reads the identifiers (the migration rules') would walk it for nothing.
    unwalked = syntax.spells_no_api
    passed: list[str] = []
    factory_pass: list[str] = []
    for c in codemods:
        if unwalked and (c.READS_FACTS or not words.wanted(c) and "factories" not in c.PROJECT_FACTS):
            continue
        if not c.ast_gate(syntax):
            continue
        if words.wanted(c):
            passed.append(c.CODE)
        elif "factories" in c.PROJECT_FACTS:
            factory_pass.append(c.CODE)
    return Survey(summary, tuple(passed), tuple(factory_pass), syntax.factory_sensitive, _outline(tree, passed or factory_pass),
                  frozenset(asked.asked), syntax.star_modules, syntax.reads_call_evidence)


def _words_only(source: bytes, codemods: Sequence[type[Codemod]], tree, kids: dict, summary, met: Met, package: str,
                words: TriggerWords) -> Survey:
    """The rules of a file no gated rule's words are in: those its words let through, without a walk (as
    filter_codemods). Factories of other modules enable the rules that read them without their words
    (engine.enabled_by_project), so those rules' gates are asked here too, without the facts: a jit
    rule's answers at once where no read of the file spells a jit API. With `factory_sensitive` read
    off the summary's walk, a file given factories under other names is then not judged again
    (`Survey.passed_with`, as for a walked file). What the gates read of aliases is not recorded: without
    factories no gate counts here, and with them an alias that may widen a gate has the file judged
    again anyway (the others only narrow: the answer here is a superset)."""
    wanted = tuple(c.CODE for c in codemods if words.wanted(c))
    syntax = syntax_of(source, None, tree, kids=kids, met=met, package=package)
    factory_pass = tuple(c.CODE for c in codemods if "factories" in c.PROJECT_FACTS and has_gate(c) and c.ast_gate(syntax))
    return Survey(summary, wanted, factory_pass, syntax.factory_sensitive, outline=_outline(tree, wanted or factory_pass),
                  realiased=frozenset(), reads_call_evidence=False)


def warm() -> None:
    """Build what the pre-filter reads of every file whose imports may reach an API (the names that can
    reach one: apis.reaching_roots) once, before worker processes are forked to survey files, and
    later to process them: each inherits it instead of building its own."""
    apis.warm()


def _outline(tree, rules) -> tuple | None:
    """Where the statements start, for a file some rule may fire in (`Survey.outline`)."""
    return statement_outline(tree.body) if rules else None
