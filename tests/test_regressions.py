"""Defects found in review, each pinned by a test."""
from __future__ import annotations

import json
import os

from rewriter.engine import Settings, process_source
from rewriter.findings import FileResult, Finding, Span, format_github, format_json, format_sarif
from rewriter.registry import all_codemods


def test_deeply_nested_file_is_an_error_not_a_crash():
    source = b"import jax\nx = " + b"-" * 50_000 + b"1\ng = jax.vmap(jax.jit(abs))\n"
    result = process_source(source, "deep.py", Settings(all_codemods()))
    assert result.error == "too deeply nested for Python's own parser"
    assert result.new_source is None


def test_dry_run_positions_refer_to_the_original_file():
    source = (
        b"import jax\nfrom phiml import math\nfrom phiml.math import batch\n\n\n"
        b"@jax.jit\n@jax.jit\ndef f(x):\n    return x\n\n\n"
        b"@math.jit_compile\ndef step(x):\n    return x\n\n\n"
        b"def run(x):\n    return math.map(step, x, dims=batch)\n"
    )
    settings = Settings(all_codemods(), original_positions=True)
    result = process_source(source, "u.py", settings)
    lines = source.decode().splitlines()
    found = {f.code: f.span.line for f in result.findings}
    assert lines[found["PML304"] - 1].strip().startswith("return math.map")
    assert result.new_source is not None  # the rewrite itself is still computed


def _finding(path: str) -> Finding:
    return Finding("PML301", "vmap-of-jit", "100% wrong\nreally", path, Span(2, 4, 2, 9))


def test_github_annotation_properties_are_escaped():
    line = format_github(_finding("we,ird:na%me.py"))
    assert "file=we%2Cird%3Ana%25me.py," in line
    assert "\n" not in line and line.endswith("::100%25 wrong%0Areally")


def test_sarif_uris_are_uri_references():
    class Rule:
        CODE, NAME, SUMMARY = "PML301", "vmap-of-jit", "s"
        SAFETY = type("S", (), {"value": "safe"})

        @staticmethod
        def documentation():
            return "d"

    relative = FileResult(path="sp ace#x.py", findings=[_finding("sp ace#x.py")])
    absolute = FileResult(path="/tmp/a b.py", findings=[_finding("/tmp/a b.py")])
    doc = json.loads(format_sarif([relative, absolute], [Rule]))
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]]
    assert uris == ["sp%20ace%23x.py", "file:///tmp/a%20b.py"]


def test_json_changed_files_excludes_failed_writes():
    failed = FileResult(path="a.py", old_source=b"x", new_source=b"y", error="cannot write: Read-only file system")
    assert json.loads(format_json([failed], {}))["changed_files"] == []


def test_fifo_given_explicitly_is_refused(tmp_path):
    from rewriter.files import discover

    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    (tmp_path / "a.py").write_text("x = 1\n")
    found = discover([str(fifo), str(tmp_path / "a.py")])
    assert found.errors == [(str(fifo), "not a regular file")]
    assert found.files == [str(tmp_path / "a.py")]


def test_map_dims_must_provably_be_batch():
    source = (
        b"from phiml import math\nfrom phiml.math import batch, spatial\n\n"
        b"@math.jit_compile\ndef step(x):\n    return math.sum(x, 's')\n\n"
        b"def run(x):\n    return math.map(step, x, dims=batch)\n\nbatch = spatial\n"
    )
    result = process_source(source, "m.py", Settings(all_codemods(), unsafe_fixes=True))
    assert result.new_source is None and not result.findings


def test_empty_selection_selects_no_rule():
    from rewriter.registry import all_codemods as every, select

    assert select(None) == every()
    assert select(()) == ()


def test_stdin_json_keeps_stderr_parseable():
    from click.testing import CliRunner

    from rewriter.cli import main

    result = CliRunner().invoke(main, ["--stdin-filename", "x.py", "--output-format", "json"], input=b"def f(:\n  jit\n")
    assert result.exit_code == 2
    document = json.loads(result.stderr)
    assert document["errors"][0]["path"] == "x.py"


def test_a_file_nested_too_deep_for_the_pre_filter_is_an_error_and_the_run_goes_on(tmp_path):
    """An expression CPython parses but the pre-filter's recursive walk cannot (a 1,500-term sum) in a
    file that imports jax: the survey crashed the whole run with RecursionError; now that file is an
    error of its own and the others are still read."""
    from rewriter import runner
    from rewriter.config import Config

    (tmp_path / "deep.py").write_bytes(b"import jax\n# jit\nf = jax.jit(abs)\nx = " + b"+".join([b"a"] * 1500) + b"\n")
    (tmp_path / "fine.py").write_bytes(b"import jax\n\n\ndef f(x):\n    return jax.jit(abs)(x)\n")
    # One job: the survey's code is the same in a pool's worker (a fork here, after a test imported jax,
    # would draw jax's warning that forking it may deadlock).
    report = runner.run([str(tmp_path)], Config(root=str(tmp_path)), jobs=1, rewrite=False)
    by_name = {os.path.basename(r.path): r for r in report.results}
    assert by_name["deep.py"].error == "too deeply nested to process"
    assert by_name["fine.py"].error is None and [f.code for f in by_name["fine.py"].findings] == ["PML302"]


def test_an_aliased_import_many_fixes_need_is_added_once():
    """Three conversions need `jax.lax` where `lax` is another module's: one `from jax import lax as lax_2`,
    not the same alias three times (libcst merges an aliased import as often as it is asked)."""
    import ast

    source = (
        b"from jax import jit\nimport jax.numpy as jnp\nfrom mylib import lax\n\n\n@jit\ndef f(x, y):\n"
        b"    if jnp.sum(y) > 0:\n        y = lax.foo(y)\n    else:\n        y = y / 2\n"
        b"    z = jnp.sum(x) if jnp.sum(y) > 3 else jnp.sum(y) / jnp.sum(x)\n"
        b"    while jnp.sum(x) < 10:\n        x = x * 2\n    return y, z\n"
    )
    result = process_source(source, "m.py", Settings(all_codemods(), unsafe_fixes=True))
    tree = ast.parse(result.new_source)
    imported = [(node.module, a.name, a.asname) for node in tree.body if isinstance(node, ast.ImportFrom) for a in node.names]
    assert imported.count(("jax", "lax", "lax_2")) == 1, imported
    assert result.new_source.count(b"lax_2.") == 3


def test_a_hoisted_wrapper_of_a_transform_is_named_after_the_function():
    """`jax.jit(jax.grad(loss))` built per call is hoisted as `loss_grad_jit`, not `<caller>_lambda_jit`:
    only a lambda is named after where it is built."""
    source = (
        b"import functools\nimport jax\n\ndef loss(x):\n    return x ** 2\n\n"
        b"def run(x):\n    g = jax.jit(jax.grad(loss))\n    v = jax.jit(jax.vmap(jax.vmap(loss)))\n"
        b"    p = jax.jit(functools.partial(loss))\n    f = jax.jit(lambda y: y + 1)\n    return g(x), v(x), p(x), f(x)\n"
    )
    result = process_source(source, "m.py", Settings(all_codemods(), unsafe_fixes=True))
    assert result.new_source is not None
    new = result.new_source.decode()
    for name in ("loss_grad_jit", "loss_vmap_vmap_jit", "loss_jit", "run_lambda_jit"):
        assert f"\n{name} = jax.jit(" in new, name
