"""What every rule declares, whichever tree it is decided on: its code, name, summary, fix safety,
examples, the guidance it implements, its pre-filter (trigger words and `ast_gate`), and its
documentation (`phiml-rewrite explain`, the README's table).

A rule is decided on libcst (`rewriter.codemod.Codemod`, a visitor that may write fixes) or on CPython's
`ast` (`rewriter.ast_rule.AstRule`, which reports only): the engine runs each kind on its own tree.
"""
from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass
from typing import ClassVar, Sequence

from .findings import Safety, Severity


def dedented(text: str) -> str:
    """An example's code, written as an indented triple-quoted string: dedented, without its first newline."""
    return textwrap.dedent(text).lstrip("\n")


@dataclass(frozen=True)
class Example:
    """A before/after pair; `after=None` means the codemod only reports this case."""

    before: str
    after: str | None = None
    note: str = ""
    by_hand: str | None = None  # for a finding without an automatic fix: the code after the manual fix


@dataclass(frozen=True)
class Unchanged:
    """A counter-example, in a rule's EXAMPLES: code the rule must leave alone (no finding, no edit),
    and why. The near misses a reader would expect it to flag: a static condition, a jit built once."""

    code: str
    note: str


class Rule:
    """One rule: what it finds, why it matters, and how it is fixed. The class docstring is the rule's
    documentation ("why")."""

    CODE: ClassVar[str]
    NAME: ClassVar[str]
    SUMMARY: ClassVar[str]
    SAFETY: ClassVar[Safety]  # the safety of the fix it offers, or DISPLAY for report-only rules
    SEVERITY: ClassVar[Severity] = Severity.WARNING
    FIX_SAFETY: ClassVar[str] = ""  # the "fix safety" paragraph: when the fix could change behaviour
    # Some rules offer a safe fix in some forms and an unsafe one in others (PML201: `lax.cond` vs a
    # `where` that evaluates a division); SAFETY is then the usual case and FIX_SAFETY the split.
    SAFETY_VARIES: ClassVar[bool] = False
    # The rule checks itself that its fixes exist in the library releases the project runs (the migrations:
    # each row says which release it needs); otherwise `report` checks the libraries the fix's code names.
    RELEASES_CHECKED: ClassVar[bool] = False
    EXAMPLES: ClassVar[Sequence[Example | Unchanged]] = ()  # before/after pairs, and counter-examples
    # The guidance this rule implements, in the words of PhiML's and PhiFlow's "What to avoid" pages and
    # of the JAX development patterns it comes from ("Avoid side effects (Jax)"): the rule's origin.
    HAZARDS: ClassVar[tuple[str, ...]] = ()
    # The fix moves code out of where it is (lifts a function, hoists a jit): in test code that changes
    # what tests observe (names, frames, trace caches shared between tests), so it is unsafe there.
    MOVES_CODE: ClassVar[bool] = False
    # The fix can make code that raises run (a traced `if` made a `where`, a parameter made static, a
    # removed API spelled the new way): code meant to fail (under `pytest.raises`, `assertRaises`, a
    # `try` whose handler reads the error, a notebook cell that shows an error, and the functions such
    # code calls: rewriter/analysis/testcode.py) keeps the error it is there to show. Reported, not fixed.
    REMOVES_ERRORS: ClassVar[bool] = False
    # The fix changes the program's structure (jit nesting, the order of transforms, where a function is
    # defined), which a test can read (`make_jaxpr`, a lowering's text, trace counts, names, frames):
    # the words a test's name would use for that structure (`("jit",)`). In test code that reads it, the
    # fix is reported, not applied; nor is it applied in code meant to fail (errors come from structure too).
    CHANGES_STRUCTURE: ClassVar[tuple[str, ...]] = ()
    # Cheap pre-filter: the file is parsed for this codemod only if its bytes contain every word of
    # at least one group, e.g. `(("vmap", "jit"), ("vmap", "compile"))`. Empty: always parsed.
    TRIGGERS: ClassVar[tuple[tuple[str, ...], ...]] = ()

    # The gate (`ast_gate`) reads the facts of the file's walk (`Syntax.facts`), which a file none of whose
    # spellings can denote an API has none of: it fails there, and the survey does not ask it (nor search
    # its trigger words) in such a file.
    READS_FACTS: ClassVar[bool] = False
    # The facts of other modules (`FileFacts.kinds()`: "traces", "factories") that can make this rule fire
    # in a file without its trigger words: a helper traced from another module need not spell `jit`.
    PROJECT_FACTS: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A necessary condition for a finding, checked on CPython's ast before the rule runs
        (`rewriter.prefilter.Syntax`: the facts of its walk, and its identifiers). By default: none,
        every file the trigger words let through is read."""
        return True

    # -- documentation ---------------------------------------------------------------------
    @classmethod
    def documentation(cls) -> str:
        return textwrap.dedent(inspect.getdoc(cls) or "").strip()

    @classmethod
    def safety_label(cls) -> str:
        """`safe`, `unsafe`, `display`, or `safe/unsafe` for rules whose fixes differ by case."""
        if cls.SAFETY_VARIES:
            return "safe/unsafe"
        return cls.SAFETY.value

    @classmethod
    def explain(cls) -> str:
        """The full `phiml-rewrite explain CODE` page, in Markdown."""
        parts = [f"# {cls.CODE} {cls.NAME}", "", cls.SUMMARY, "", "## Why", "", cls.documentation(), ""]
        parts += ["## Fix safety", "", f"**{cls.safety_label()}**. {cls.FIX_SAFETY}".strip(), ""]
        if cls.HAZARDS:
            parts += ["## The guidance it implements", "", *(f"- {h}" for h in cls.HAZARDS), ""]
        examples = [ex for ex in cls.EXAMPLES if isinstance(ex, Example)]
        for i, ex in enumerate(examples, 1):
            title = "Example" if len(examples) == 1 else f"Example {i}"
            parts += [f"## {title}" + (f": {ex.note}" if ex.note else ""), "", "Before:", "", "```python",
                      ex.before.strip("\n"), "```", ""]
            if ex.after is None:
                parts += ["Reported only: no automatic fix.", ""]
                if ex.by_hand is not None:
                    parts += ["Fixed by hand:", "", "```python", ex.by_hand.strip("\n"), "```", ""]
            else:
                parts += ["After:", "", "```python", ex.after.strip("\n"), "```", ""]
        for unchanged in cls.EXAMPLES:
            if isinstance(unchanged, Unchanged):
                parts += [f"## Left alone: {unchanged.note}", "", "```python", unchanged.code.strip("\n"), "```", ""]
        return "\n".join(parts).rstrip() + "\n"
