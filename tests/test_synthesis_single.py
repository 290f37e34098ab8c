"""One fix of one buffer verified by synthesis (rewriter/verify/synthesis/single.py): the function
chosen, the trees, the verdict's line; the runs themselves on jax are marked `backends`."""
from __future__ import annotations

import os
import textwrap

import pytest

from rewriter.lsp.document import DocumentAnalysis
from rewriter.verify.synthesis.command import Budget
from rewriter.verify.synthesis.report import ERROR, FALSIFIED, UNSYNTHESIZABLE, VERIFIED, Result
from rewriter.verify.synthesis.single import FixVerdict, _function, _mirror, verify_fix

CLIPPED = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp
    from pkg.limits import LIMIT


    @jax.jit
    def clipped(x):
        if jnp.abs(x).max() > LIMIT:
            y = jnp.clip(x, -LIMIT, LIMIT)
        else:
            y = x
        return y


    def main():
        return clipped(jnp.array([0.5, 2.0]))
    """)


def _fix(text: str, path: str):
    """The buffer's only PML201 finding and the text with its fix alone."""
    analysis = DocumentAnalysis.of(text, path)
    (finding,) = [f for f in analysis.findings if f.code == "PML201"]
    return finding, analysis.fixed_text(finding)


def test_the_function_is_the_one_containing_the_fix():
    before = "def f(x):\n    return x\n\n\ndef g(x):\n    return x\n"
    after = before.replace("def g(x):\n    return x", "def g(x):\n    return x + 0")
    assert _function(before, after, 6) == ("g", "")
    assert _function(before, after, 1) == ("g", "")  # the line is elsewhere: the one changed function
    assert _function(before, before + "print(1)\n", 1)[1].startswith("the fix changes module-level code")
    assert _function(before, before, 1)[1] == "the fix changes no code that runs"


def test_the_trees_link_the_project_and_hold_the_buffer(tmp_path):
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "mod.py").write_text("on disk\n")
    (project / "pkg" / "limits.py").write_text("LIMIT = 1.0\n")
    (project / "data.csv").write_text("1,2\n")
    (project / ".git").mkdir()
    written = _mirror(project, project.joinpath("pkg", "mod.py").relative_to(project), "in the buffer\n",
                      tmp_path / "tree")
    assert written == tmp_path / "tree" / "pkg" / "mod.py" and written.read_text() == "in the buffer\n"
    assert not written.is_symlink() and not (tmp_path / "tree" / "pkg").is_symlink()
    assert os.path.islink(tmp_path / "tree" / "pkg" / "limits.py") and os.path.islink(tmp_path / "tree" / "data.csv")
    assert not (tmp_path / "tree" / ".git").exists()  # what the CLI's mirror leaves out
    assert (project / "pkg" / "mod.py").read_text() == "on disk\n"


def test_what_cannot_be_synthesized_says_why_without_running(tmp_path):
    torch_module = "import torch\n\n\ndef f(x):\n    return x\n"
    verdict = verify_fix(torch_module, torch_module.replace("return x", "return x + 0"), str(tmp_path / "t.py"), 5)
    assert verdict.status == UNSYNTHESIZABLE and verdict.function == "f"
    assert verdict.message() == "not synthesizable: synthesis covers PhiML and jax modules so far"
    unknown = CLIPPED.replace("\n\ndef main():\n    return clipped(jnp.array([0.5, 2.0]))\n", "\n")
    finding, fixed = _fix(unknown, str(tmp_path / "pkg" / "mod.py"))
    verdict = verify_fix(unknown, fixed, str(tmp_path / "pkg" / "mod.py"), finding.span.line)
    assert verdict.status == UNSYNTHESIZABLE and verdict.results == []
    assert verdict.message().startswith("not synthesizable: argument `x` of unknown type")


def _result(backend: str, status: str, **kw) -> Result:
    return Result("m.py", "f", backend, status, **kw)


def test_the_verdict_in_one_line():
    same = FixVerdict(VERIFIED, "f", [_result("numpy", VERIFIED, examples=30), _result("jax", VERIFIED, examples=30)])
    assert same.message() == "verified on numpy, jax (30 inputs)" and same.complete
    assert same.short() == "verified on numpy, jax"
    cut = FixVerdict(VERIFIED, "f", [_result("numpy", VERIFIED, examples=31), _result("jax", VERIFIED, examples=12,
                                                                                     cut_short=True)])
    assert cut.message() == "verified on numpy (31 inputs), jax (12 inputs) (the time budget cut the search short)"
    assert not cut.complete and cut.short() == "verified on numpy, jax, cut short"
    falsified = FixVerdict(FALSIFIED, "f", [_result("numpy", VERIFIED, examples=30),
                                            _result("jax", FALSIFIED, inputs="x=int32[2] [0, 0]",
                                                    reason="result: dtype int32 != float32", beyond_calls=True)])
    assert falsified.message() == \
        "falsified on jax (at sizes no call passes): x=int32[2] [0, 0] — result: dtype int32 != float32"
    assert falsified.short() == "falsified on jax"
    error = FixVerdict(ERROR, "f", reason="jax: the worker failed")
    assert error.message() == "not verified: jax: the worker failed" and error.short() == ""
    again = FixVerdict.from_dict(falsified.to_dict())  # what the editor's process hands back
    assert again.message() == falsified.message() and again.results == falsified.results


@pytest.mark.backends
def test_a_right_fix_is_verified_with_the_projects_imports(tmp_path):
    """The buffer imports a module of its project: the trees resolve it as the project does."""
    pytest.importorskip("jax")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "limits.py").write_text("LIMIT = 1.0\n")
    path = str(tmp_path / "pkg" / "mod.py")  # never written: the buffer is verified
    finding, fixed = _fix(CLIPPED, path)
    verdict = verify_fix(CLIPPED, fixed, path, finding.span.line, root=str(tmp_path),
                         budget=Budget(max_examples=20, seconds=10))
    assert verdict.message().startswith("verified on jax (") and verdict.complete, verdict.to_dict()
    assert not os.path.exists(path)


@pytest.mark.backends
def test_a_wrong_fix_is_falsified_with_its_counterexample(tmp_path):
    pytest.importorskip("jax")
    text = open(os.path.join(os.path.dirname(__file__), "..", "golden", "verify-synthesis", "where_int_dtype",
                             "original.py")).read()
    finding, fixed = _fix(text, str(tmp_path / "halve.py"))
    verdict = verify_fix(text, fixed, str(tmp_path / "halve.py"), finding.span.line,
                         budget=Budget(max_examples=30, seconds=10))
    assert verdict.status == FALSIFIED and verdict.function == "halve_positive"
    assert verdict.message().startswith("falsified on jax: x=int32[") and "dtype int32 != float32" in verdict.message()
