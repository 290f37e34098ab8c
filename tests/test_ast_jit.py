"""rewriter.analysis.ast_jit: the jit contexts of a module, read from CPython's `ast`.

Over a source: its contexts in order, each by where its function starts (the line of its `def` or
`lambda`, and its name), its transform, how it is traced, its static parameters, where its caller's
function and its application start; and the transform each Name carries where it is read
(`jitted_value`). The answers on the targeted cases below and on the golden cases and examples are
recorded in tests/data/readings/jit_*.txt (tests/harness/readings.py): they are the contexts libcst's jit
analysis (rewriter/analysis/jit.py, deleted) found, which this test compared with the `ast` ones on the
same code until then. `python -m tests.test_ast_jit --record` writes them again; `python -m
tests.test_ast_jit PATH...` prints the reading of other files.
"""
from __future__ import annotations

import ast
import sys

import pytest

from rewriter.analysis import ast_jit, ast_resolver
from tests.harness import readings

FORMS = [
    "import jax\n@jax.jit\ndef f(x):\n    return g(x)\ndef g(y):\n    return y\nh = jax.jit(lambda z: z, static_argnums=0)\n",
    "from functools import partial\nimport jax\n@partial(jax.jit, static_argnames=('n',))\ndef f(x, n):\n    return x\nfast = f\n",
    "from phiml import math\n@math.jit_compile(auxiliary_args='n')\ndef f(x, n):\n    return x\nstep = math.jit_compile(f)\n",
    "import jax\nclass M:\n    def step(self, x):\n        return x\n    def run(self, x):\n        return jax.jit(self.step)(x)\n",
]


def _line(node) -> str:
    return str(node.lineno) if node is not None else "-"


def reading(source: str) -> list[str]:
    """The contexts in order (`context`), then the Names a transform's value reaches, sorted (`jitted`)."""
    tree = ast.parse(source)
    analysis = ast_jit.JitAnalysis(ast_resolver.NameResolver(tree))
    out = []
    for c in analysis.contexts:
        static = ",".join(sorted(c.static_params)) if c.static_params is not None else "?"
        caller = c.caller.function if c.caller is not None else None
        out.append(f"context {c.name}@{_line(c.function)} {c.transform.api.name} {c.how} static [{static}] "
                   f"caller {_line(caller)} application {_line(c.application)}")
    jitted = sorted((n.lineno, n.id, transform.api.name) for n in ast.walk(tree)
                    if type(n) is ast.Name and n.id not in ("None", "True", "False")
                    and (transform := analysis.jitted_value(n)) is not None)
    return out + [f"jitted {line} {name} {api}" for line, name, api in jitted]


def _cases() -> dict[str, list[str]]:
    return readings.read_all(((repr(s), s) for s in FORMS), reading)


def _golden() -> dict[str, list[str]]:
    return readings.read_all(readings.golden_and_examples(), reading)


RECORDINGS = {"jit_cases": _cases, "jit_golden": _golden}


def _check(name: str, found: dict[str, list[str]], only: list[str] | None = None) -> None:
    readings.check(name, found, "tests.test_ast_jit", only)


@pytest.mark.parametrize("source", FORMS)
def test_forms(source):
    _check("jit_cases", {repr(source): reading(source)}, [repr(source)])


def test_the_recorded_cases_are_all_asked():
    assert readings.recorded("jit_cases").keys() == _cases().keys()


def test_golden_cases_and_examples_find_the_recorded_contexts():
    found = _golden()
    _check("jit_golden", found)
    assert sum(line.startswith("context ") for lines in found.values() for line in lines) > 300


if __name__ == "__main__":
    sys.exit(readings.main("tests.test_ast_jit", RECORDINGS, reading))
