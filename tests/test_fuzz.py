"""Fuzzing the engine: generated programs and mutated golden cases.

For every input phiml-rewrite must not crash (no internal error), its output must parse, a second
run must change nothing, and a file without findings must come back byte-identical. Findings
reported at original positions (check mode) must lie inside the file.

CI runs a bounded number of examples (PHIML_FUZZ_EXAMPLES, default 80 per strategy); `make fuzz`
runs thousands. Hypothesis keeps failing examples in `.hypothesis/` and replays them first.
"""
from __future__ import annotations

import ast
import os
import warnings
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rewriter.engine import Settings, process_source
from rewriter.registry import all_codemods

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = int(os.environ.get("PHIML_FUZZ_EXAMPLES", "80"))
GOLDEN = [p.read_text() for p in sorted((ROOT / "golden").glob("*/*.py")) if not p.name.endswith(".expected.py")]
GOLDEN += [p.read_text() for p in sorted((ROOT / "examples").glob("*.py"))]
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
MODES = [Settings(all_codemods()), Settings(all_codemods(), unsafe_fixes=True, original_positions=True),
         Settings(all_codemods(), ast_prefilter=False)]


def _parses(source: bytes) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def check(source: bytes, mode: Settings) -> None:
    """The four properties, for one input and one mode."""
    result = process_source(source, "fuzz.py", mode)
    if result.error:
        assert "internal error" not in result.error and "fixpoint" not in result.error, result.error
        assert result.new_source is None
        return
    if mode.original_positions:  # otherwise findings of later fixpoint passes are placed in the rewritten code
        lines = source.count(b"\n") + 1
        for f in result.findings:
            assert 1 <= f.span.line <= f.span.end_line <= lines, f
    if not result.findings:
        assert result.new_source is None  # untouched: byte-identical
    if result.new_source is None:
        return
    assert _parses(result.new_source)
    again = process_source(result.new_source, "fuzz.py", mode)
    assert again.error is None and again.new_source is None, (again.error, [f.code for f in again.findings if f.applied])


# -- mutations of the golden cases: inputs full of the APIs the rules look for ------------------------


@st.composite
def mutated_golden(draw) -> bytes:
    lines = draw(st.sampled_from(GOLDEN)).splitlines(keepends=True)
    donors = draw(st.sampled_from(GOLDEN)).splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "graft", "indent", "dedent", "rename", "crlf"]))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "graft" and donors:  # a line of another case, at this line's indentation
            donor = donors[draw(st.integers(0, len(donors) - 1))]
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            lines.insert(i, indent + donor.lstrip())
        elif kind == "indent":
            lines[i] = "    " + lines[i]
        elif kind == "dedent" and lines[i].startswith("    "):
            lines[i] = lines[i][4:]
        elif kind == "rename":  # one identifier of the line renamed everywhere: captures, shadowing
            words = [w for w in _identifiers(lines[i]) if len(w) > 1]
            if words:
                old = draw(st.sampled_from(words))
                new = draw(st.sampled_from(["x", "math", "jax", "self", "tensor", old + "_2", "jit_compile", "vmap"]))
                lines = [_replace_identifier(line, old, new) for line in lines]
        elif kind == "crlf":
            lines = [line.replace("\n", "\r\n") if not line.endswith("\r\n") else line for line in lines]
    return "".join(lines).encode()


def _identifiers(line: str) -> list[str]:
    import io
    import tokenize

    try:
        return [t.string for t in tokenize.generate_tokens(io.StringIO(line).readline) if t.type == tokenize.NAME]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []


def _replace_identifier(line: str, old: str, new: str) -> str:
    """`old` as a NAME token replaced (never inside strings or comments), by token positions."""
    import io
    import tokenize

    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(line).readline) if t.type == tokenize.NAME and t.string == old]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return line
    for t in reversed(tokens):
        line = line[: t.start[1]] + new + line[t.end[1] :]
    return line


@FUZZ
@given(source=mutated_golden(), mode=st.sampled_from(MODES))
def test_mutated_golden_cases(source, mode):
    check(source, mode)


# -- programs from Python's grammar (hypothesmith) -----------------------------------------------------


# Generated programs seldom spell an API the rules know, and the byte pre-filter would skip them
# unread: each is followed by imports and the rules' trigger words, so that it reaches the parsers and
# the analysis (imports at the end of a module are as valid as at its start; the words are a comment).
_REACHING = "\nimport jax\nfrom phiml import math\n# jit vmap function trace compile gradient solve_linear for\n"


def _reaching(program: str) -> bytes:
    return (program + _REACHING).encode("utf-8", "surrogatepass")


# hypothesmith compiles what it generates (as "<string>"): `1()` is grammar, and CPython warns of it.
@pytest.mark.filterwarnings("ignore::SyntaxWarning:<string>")
@FUZZ
@given(source=hypothesmith.from_grammar(), mode=st.sampled_from(MODES))
def test_programs_from_the_grammar(source, mode):
    check(_reaching(source), mode)


# Generating these costs a hundred times what checking them does: half the examples of the others.
@settings(max_examples=max(1, EXAMPLES // 2), deadline=None, suppress_health_check=list(HealthCheck))
@given(source=hypothesmith.from_node(), mode=st.sampled_from(MODES))
def test_programs_from_libcst_nodes(source, mode):
    check(_reaching(source), mode)


# -- the shapes that once broke a rewriter -------------------------------------------------------------


@pytest.mark.parametrize("source", [
    b"", b"\n", b"\xef\xbb\xbf", b"# -*- coding: latin-1 -*-\nx = '\xe9'\n", b"x = 1", b"\r\n\r\n", b"\t\n",
    b"from phiml import math\n@math.jit_compile\ndef f(x):\n\tif x > 0:\n\t\treturn x\n\treturn -x\n",
    b"import jax\nf = jax.jit(lambda x: x)\n" * 3, b"(" * 200 + b")" * 200 + b"\n",
])
def test_edge_inputs(source):
    for mode in MODES:
        check(source, mode)
