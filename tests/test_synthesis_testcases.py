"""Which changed units are tests that run without inputs (rewriter/verify/synthesis/testcases.py), and
how a run's outcomes become a verdict."""
from __future__ import annotations

import ast
import textwrap

import pytest

from rewriter.verify.synthesis import testcases

SOURCE = textwrap.dedent('''
    import unittest
    from absl.testing import parameterized

    class Base(unittest.TestCase):
        pass

    class ThroughBase(Base):
        def test_a(self): pass
        def helper(self): pass
        def test_args(self, n): pass
        @parameterized.parameters(1, 2)
        def test_cases(self, n): pass
        async def test_async(self): pass

    class TestPlain:
        def test_b(self): pass

    class TestWithInit:
        def __init__(self, n): pass
        def test_c(self): pass

    class Model:
        def test_d(self): pass

    def test_e(): pass
    def test_fixture(tmp_path): pass
    def step(x): pass
''')


@pytest.mark.parametrize("name, expected", [
    ("ThroughBase.test_a", ("unittest", "")),
    ("ThroughBase.helper", ("", "")),
    ("ThroughBase.test_args", ("", testcases.WITH_PYTEST)),
    ("ThroughBase.test_cases", ("", testcases.WITH_PYTEST)),
    ("ThroughBase.test_async", ("", testcases.ASYNC)),
    ("TestPlain.test_b", ("pytest", "")),
    ("TestWithInit.test_c", ("", "")),
    ("Model.test_d", ("", "")),
    ("test_e", ("pytest", "")),
    ("test_fixture", ("", testcases.WITH_PYTEST)),
    ("step", ("", "")),
])
def test_kind(name, expected):
    assert testcases.kind(ast.parse(SOURCE), name) == expected


def test_verdicts_from_outcomes():
    assert testcases.compare(("passed", ""), ("passed", ""))["status"] == "verified"
    failed = testcases.compare(("passed", ""), ("failed", "AssertionError: 1 != 2"))
    assert failed["status"] == "falsified" and "1 != 2" in failed["reason"]
    assert testcases.compare(("passed", ""), ("skipped", "no GPU"))["status"] == "falsified"
    assert "fails here" in testcases.compare(("failed", "boom"), ("passed", ""))["reason"]
    assert "skipped" in testcases.compare(("skipped", "no GPU"), ("failed", "x"))["reason"]


def test_run_reports_pass_failure_and_skip_of_each_kind():
    namespace = {}
    exec(compile(textwrap.dedent('''
        import unittest
        class T(unittest.TestCase):
            def test_ok(self): self.assertEqual(1, 1)
            def test_bad(self): self.assertEqual(1, 2)
            @unittest.skip("later")
            def test_skip(self): pass
        class TestP:
            def setup_method(self, method): self.n = 3
            def test_uses_setup(self): assert self.n == 3
        def test_raises(): raise ValueError("no")
    '''), "<tests>", "exec"), namespace)
    module = type("M", (), namespace)
    assert testcases.run(module, "T.test_ok", "unittest") == ("passed", "")
    assert testcases.run(module, "T.test_bad", "unittest")[0] == "failed"
    assert testcases.run(module, "T.test_skip", "unittest") == ("skipped", "later")
    assert testcases.run(module, "TestP.test_uses_setup", "pytest") == ("passed", "")
    assert testcases.run(module, "test_raises", "pytest") == ("failed", "ValueError: no")
