"""Files as they come: BOMs, coding cookies, tabs, CRLF, very large and very deep files, in place."""
from __future__ import annotations

import ast

import pytest

from rewriter import runner
from rewriter.config import Config

from tests.harness.snippets import TRACED_IF as _TRACED_IF

TRACED_IF = _TRACED_IF.replace("    if x.mean", "    # régime: double above one\n    if x.mean")



@pytest.fixture
def config(tmp_path):
    return Config(root=str(tmp_path))


def rewrite(path, config) -> bytes:
    report = runner.run([str(path)], config, write=True)
    assert not report.errors, [r.error for r in report.errors]
    return path.read_bytes()


def test_utf8_bom_is_kept(tmp_path, config):
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + TRACED_IF.encode())
    out = rewrite(path, config)
    assert out.startswith(b"\xef\xbb\xbf") and not out.startswith(b"\xef\xbb\xbf\xef\xbb\xbf")
    assert b"math.where" in out and "régime".encode() in out
    ast.parse(out)


def test_latin1_cookie_is_honoured(tmp_path, config):
    path = tmp_path / "latin.py"
    path.write_bytes(("# -*- coding: latin-1 -*-\n" + TRACED_IF).encode("latin-1"))
    out = rewrite(path, config)
    assert "régime".encode("latin-1") in out and "régime".encode() not in out
    assert b"math.where" in out
    ast.parse(out)


def test_tabs_and_crlf_are_kept(tmp_path, config):
    path = tmp_path / "tabs.py"
    source = TRACED_IF.replace("    ", "\t").replace("\n", "\r\n")
    path.write_bytes(source.encode())
    out = rewrite(path, config).decode()
    assert "math.where" in out
    lines = out.split("\r\n")
    assert "\n" not in out.replace("\r\n", "")  # every line ending is still CRLF
    assert all(not line.startswith(" ") for line in lines)  # indentation is still tabs
    assert any(line.startswith("\t") for line in lines)


@pytest.mark.slow
def test_a_very_large_file(tmp_path, config):
    """20,000 lines with one hazard at the end: found and fixed, the rest byte-identical."""
    filler = "".join(f"def helper_{i}(a, b):\n    return a * {i} + b\n\n\n" for i in range(5_000))
    path = tmp_path / "large.py"
    path.write_text(filler + TRACED_IF)
    out = rewrite(path, config).decode()
    assert out.startswith(filler) and "math.where" in out[len(filler):]


@pytest.mark.slow
def test_a_very_long_line(tmp_path, config):
    path = tmp_path / "long.py"
    long_call = "values = [" + ", ".join(str(i) for i in range(20_000)) + "]\n"  # a 129 kB line
    path.write_text(long_call + TRACED_IF)
    out = rewrite(path, config).decode()
    assert out.startswith(long_call) and "math.where" in out


@pytest.mark.parametrize("depth", [100, 1_000, 100_000])
def test_deep_nesting_is_an_error_for_that_file_only(tmp_path, config, depth):
    deep = tmp_path / "deep.py"
    deep.write_text("from phiml import math\nx = " + "(" * depth + "1" + ")" * depth + "\n")
    other = tmp_path / "other.py"
    other.write_text(TRACED_IF)
    report = runner.run([str(deep), str(other)], config, write=True)
    by_name = {r.path.rsplit("/", 1)[-1]: r for r in report.results}
    assert "math.where" in other.read_text()
    if by_name["deep.py"].error:
        assert "nest" in by_name["deep.py"].error or "parse" in by_name["deep.py"].error
    assert deep.read_text().count("(") == depth  # never half-written


# -- syntax of a newer Python than the one running the tool (PEP 695, PEP 701) -----------------
# libcst reads these grammars; CPython 3.11 does not. Such files are analysed and fixed, with a note,
# and their rewrites are checked with libcst's grammar. A real syntax error is still an error.
NEWER = '''\
from phiml import math

type Operator = object


def diffuse(u, dt, solve):
    label = f"{"implicit"} step"
    return math.solve_linear(math.jit_compile_linear(lambda x: x - dt * math.laplace(x)), u, solve)


def generic[T](u: T, dt, solve) -> T:
    def op(x: T) -> T:
        return x - dt * math.laplace(x)
    return math.solve_linear(math.jit_compile_linear(op), u, solve)
'''


def test_newer_syntax_is_analysed_and_fixed_with_a_note(tmp_path, config):
    path = tmp_path / "modern.py"
    path.write_text(NEWER)
    report = runner.run([str(path)], config, write=True)
    (result,) = report.results
    assert result.error is None and report.exit_code != 2
    assert result.notes and "PEP 695 `type` statement at line 3" in result.notes[0]
    out = path.read_text()
    assert "def _diffuse_operator(x, dt):" in out and 'f"{"implicit"} step"' in out
    assert "type Operator = object" in out
    # the generic function's nested def annotates with its type parameter: it must stay
    generic = [f for f in result.findings if "`generic`" in f.message]
    assert generic and not generic[0].applied and "`T`" in generic[0].note
    again = runner.run([str(path)], config, write=True)
    assert not again.results[0].changed


def test_newer_syntax_note_in_cli_and_json(tmp_path):
    from click.testing import CliRunner

    from rewriter.cli import main

    path = tmp_path / "modern.py"
    path.write_text(NEWER)
    text = CliRunner().invoke(main, ["--check", "--no-cache", "--no-progress", str(path)])
    assert text.exit_code == 1, text.output
    assert "note: needs newer Python syntax than 3.11 (PEP 695 `type` statement at line 3)" in text.output
    data = CliRunner().invoke(main, ["--check", "--no-cache", "--output-format", "json", str(path)])
    import json

    notes = json.loads(data.stdout)["notes"]
    assert notes and notes[0]["path"].endswith("modern.py") and "libcst" in notes[0]["message"]


@pytest.mark.parametrize("source, line", [
    ("import jax\n\n\ndef f(:\n    return jax.jit(lambda y: y)\n\n\ntype X = int\n", 4),
    ("import jax\n\n\ndef f(x):\n    return jax.jit(lambda y: y)(x)\n\n\nx = f\"{1 +}\"\n", 8),
])
def test_real_syntax_errors_beside_newer_syntax_are_still_errors(tmp_path, config, source, line):
    path = tmp_path / "broken.py"
    path.write_text(source)
    report = runner.run([str(path)], config, write=True)
    (result,) = report.results
    assert result.error and result.error.startswith(f"syntax error at line {line}")
    assert path.read_text() == source


def test_pep701_fstring_only(tmp_path, config):
    path = tmp_path / "fstrings.py"
    source = NEWER.replace("type Operator = object\n", "")
    path.write_text(source)
    (result,) = runner.run([str(path)], config, write=False).results
    assert result.error is None and "PEP 701 f-string at line 6" in result.notes[0]


@pytest.mark.parametrize("write", [False, True], ids=["check", "in place"])
def test_a_nonlocal_at_module_level_is_reported_as_cpython_reports_it(tmp_path, config, write):
    """`nonlocal` at module level parses (`ast.parse`) but CPython refuses to compile it, and the scopes
    of such a module cannot be built: the file is reported as CPython reports it, not as an internal
    error, and left as it is. (Other code only the compiler rejects, `return` outside a function, is
    analysed: it has scopes.)"""
    path = tmp_path / "module.py"
    source = "nonlocal traces\nimport jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
    path.write_text(source)
    report = runner.run([str(path)], config, write=write)
    (result,) = report.results
    assert result.error == "syntax error at line 1, column 1: nonlocal declaration not allowed at module level"
    assert path.read_text() == source
