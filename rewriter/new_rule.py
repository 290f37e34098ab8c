"""`python -m rewriter.new_rule NAME --code PMLxxx --api QUALIFIED.NAME`: a new rule's starting point.

Writes everything a rule needs before its logic: `codemods/<name>.py`, a report-only rule decided
on CPython's `ast` (rewriter/ast_rule.py) that flags every call of one API (found by qualified name, so aliases and `from` imports count and a
function of your own with the same name does not), with its documented examples; six golden cases
under `golden/<name>/`, three it reports and three it must leave alone; then regenerates the
snapshots, the rule index and the rule pages. The result passes `make check` as written. Then make
it right: the docstring says why, `check` decides what is really a hazard, a fix (planned on `ast`,
its code written on libcst: rewriter/ast_rule.py, PlannedFix) comes with golden `.expected.py`
rewrites (CONTRIBUTING.md has the checklist).
"""
from __future__ import annotations

import keyword
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent

RULE = '''"""{code} {name}."""
from __future__ import annotations

import ast

from rewriter.ast_rule import AstRule
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged

API = "{api}"


class {cls}(AstRule):
    """TODO: why a call of `{api}` goes wrong under jit, on which backends, and what to write instead.
    This docstring is the "Why" of the rule's page (`phiml-rewrite explain {code}`).
    """

    CODE = "{code}"
    NAME = "{name}"
    SUMMARY = "{summary}"
    SAFETY = Safety.DISPLAY
    SEVERITY = Severity.WARNING
    FIX_SAFETY = "Reported only: no fix yet."
    EXAMPLES = (
        Example("import {module}\\n\\ny = {api}(x)\\n", None, note="a call through the module's name"),
        Unchanged("def {attr}(x):\\n    return x\\n\\n\\ny = {attr}(1)\\n", "a function of your own with the same name"),
    )
    TRIGGERS = (("{attr}",),)  # the file is read for this rule only if its bytes hold one of these words

    def check(self) -> None:
        names = self.file.names
        for node in self.file.nodes(ast.Call):
            if API in names.qualified_names(node.func):
                self.report(node, f"`{{API}}` TODO: what goes wrong under jit", hint="TODO: what to write instead")
'''

# case -> (docstring, imports, body, reported): a reported case's findings are its lines that call the API.
CASES = {
    "call": ("A call through the module's name: reported.", "import {module}", "def run(x):\n    return {api}(x)\n", True),
    "from_import": ("Imported by name: the same API, reported.", "from {module} import {attr}",
                    "def run(x):\n    return {attr}(x)\n", True),
    "alias": ("Through an alias of its module, twice: reported twice.", "import {module} as m",
              "def run(x):\n    return m.{attr}(x)\n\n\ndef again(x):\n    y = m.{attr}(x)\n    return y\n", True),
    "own_function": ("A function of your own with the same name: left alone.", "",
                     "def {attr}(x):\n    return x\n\n\ndef run(x):\n    return {attr}(x)\n", False),
    "method": ("A method with the same name on another object: left alone.", "",
               "def run(obj, x):\n    return obj.{attr}(x)\n", False),
    "not_called": ("Named, not called: left alone.", "import {module}", "TABLE = {{\"op\": {api}}}\n", False),
}


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))


def _golden(code: str, attr: str, docstring: str, imports: str, body: str, reported: bool) -> str:
    """A golden case: docstring, imports, its GOLDEN literal (the lines that call the API), the code."""
    head = f'"""{docstring}"""\n' + (f"{imports}\n" if imports else "")
    first = len(head.splitlines()) + 5  # a blank line, GOLDEN, two blank lines, then the body
    lines = [first + i for i, line in enumerate(body.splitlines())
             if reported and f"{attr}(" in line and not line.lstrip().startswith("def ")]
    findings = ", ".join(f'"{code}:{n}"' for n in lines)
    return f"{head}\nGOLDEN = {{\"findings\": [{findings}]}}\n\n\n{body}"


def scaffold(root: Path, name: str, code: str, api: str, summary: str) -> list[Path]:
    """Write the rule and its golden cases under `root`; returns the files written."""
    module, _, attr = api.rpartition(".")
    if not module or not all(p.isidentifier() and not keyword.iskeyword(p) for p in api.split(".")):
        raise click.BadParameter(f"{api!r} is not a qualified name like jax.numpy.nonzero", param_hint="--api")
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name):
        raise click.BadParameter(f"{name!r}: lower-case words joined by hyphens, like traced-if", param_hint="NAME")
    if not re.fullmatch(r"PML[1-9][0-9]{2}", code):
        raise click.BadParameter(f"{code!r}: PML and three digits, like PML508", param_hint="--code")
    from .registry import rule_index

    taken = {r.code: r.name for r in rule_index()}
    if code in taken or name in taken.values():
        raise click.BadParameter(f"{code} or {name} is taken: `phiml-rewrite rules` lists the rules")
    rule_file = root / "codemods" / f"{name.replace('-', '_')}.py"
    folder = root / "golden" / name
    if rule_file.exists() or folder.exists():
        raise click.BadParameter(f"{rule_file} or {folder} exists already")
    values = {"code": code, "name": name, "api": api, "module": module, "attr": attr, "cls": _class_name(name),
              "summary": summary.replace('"', '\\"')}
    rule_file.write_text(RULE.format(**values))
    folder.mkdir(parents=True)
    written = [rule_file]
    for case, (docstring, imports, body, reported) in CASES.items():
        path = folder / f"{case}.py"
        path.write_text(_golden(code, attr, docstring, imports.format(**values), body.format(**values), reported))
        written.append(path)
    return written


def regenerate(root: Path) -> None:
    """What follows from the rules: the index, the snapshots, the rule pages."""
    for command in (["-m", "rewriter.registry"], ["-m", "tests.harness.snapshots", "--accept"],
                    ["-m", "rewriter.cli", "rules", "--docs", "docs/rules"]):
        subprocess.run([sys.executable, *command], cwd=root, check=True)


@click.command()
@click.argument("name")
@click.option("--code", required=True, help="The rule's code, e.g. PML508 (the family's next free number).")
@click.option("--api", required=True, help="The qualified name of the API whose calls it reports, e.g. jax.numpy.nonzero.")
@click.option("--summary", default="TODO: one line on what goes wrong and what to do", help="The one-line summary.")
def main(name: str, code: str, api: str, summary: str) -> None:
    """Write a new report-only rule NAME that flags calls of --api, with golden cases, then regenerate
    the snapshots, the rule index and the rule pages."""
    written = scaffold(ROOT, name, code, api, summary)
    regenerate(ROOT)
    click.echo(textwrap.dedent(f"""\
        wrote {', '.join(str(p.relative_to(ROOT)) for p in written[:2])} and {len(written) - 2} more golden cases;
        regenerated rewriter/rule_index.py, the snapshots and docs/rules/. Next (CONTRIBUTING.md):
          1. the docstring: why it is a hazard; the visitor: what really is one
          2. golden cases from real code you have read, with .expected.py rewrites once it fixes
          3. make check"""))


if __name__ == "__main__":
    main()
