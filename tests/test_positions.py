"""rewriter.analysis.positions gives libcst's own positions, computed one top-level statement at a time."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
from libcst.metadata import PositionProvider

from rewriter import cst_tree
from rewriter.analysis.positions import StatementPositions

ROOT = Path(__file__).resolve().parent.parent

ODD = (
    "#!/usr/bin/env python\r\n# header comment\r\n\r\nimport a; import b\r\n"
    "def f(x):\r\n    if x:  # c\r\n        return (\r\n            x\r\n        )\r\n\r\n"
    "class C:\r\n    '''doc\r\n    string'''\r\n    y = 1\r\n# footer\r\n"
)

# Statements in blocks: tabs, decorators and comments between them, elif/else, try, async, match, a
# block's footer comment, a line continuation, a multi-line string, semicolons.
NESTED = '''import os


class A(object):
\t"""tabs"""

\t@staticmethod
\t# comment between
\t@decorate(
\t\tx=1)
\tdef f(a, b=\\
\t\t2):
\t\tif a:
\t\t\tpass
\t\telif b:  # why
\t\t\treturn 1; return 2
\t\telse:
\t\t\ttry:
\t\t\t\tx = """
multi
"""
\t\t\texcept (ValueError, TypeError) as e:
\t\t\t\traise
\t\t\telse:
\t\t\t\tpass
\t\t\tfinally:
\t\t\t\tdel x
\t\t# block footer

\tasync def g(self):
\t\tasync with a as b, c:
\t\t\tasync for i in b: await i
\t\tmatch self:
\t\t\tcase [1, *rest] if rest:
\t\t\t\twhile True:
\t\t\t\t\tbreak
\t\t\tcase _:
\t\t\t\tfor k in range(3):
\t\t\t\t\tcontinue
\t\t\t\telse:
\t\t\t\t\tpass
# module footer
'''


def _check(module: cst.Module, source: bytes | None = None) -> int:
    parents: dict = {}
    cst_tree.visit_batched(module, [], parents=parents)
    expected = cst.MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ours = StatementPositions(cst.MetadataWrapper(module, unsafe_skip_copy=True), lambda n: parents.get(id(n)),
                              lambda n: id(n) in parents, source)
    nodes = list(cst_tree.walk(module))
    for node in reversed(nodes):  # from the end: statements are asked out of order
        assert node in ours
        assert ours[node] == expected[node], (type(node).__name__, ours[node], expected[node])
    assert cst.Name("elsewhere") not in ours
    return len(nodes)


def test_every_node_has_libcsts_position():
    cases = [cst.parse_module(ODD), cst.parse_module(NESTED), cst.parse_module(NESTED.replace("\n", "\r\n")),
             cst.parse_module("x = 1"), cst.parse_module("")]
    for path in [*sorted(ROOT.glob("golden/*/*.expected.py")), *sorted(ROOT.glob("examples/*.py"))]:
        cases.append(cst.parse_module(path.read_bytes()))
    assert sum(_check(module) for module in cases) > 20_000


def test_statement_starts_read_from_cpythons_parse_are_libcsts():
    """With the bytes at hand, where statements start comes from CPython's parse (positions._AstStarts):
    the same positions, decorators, comments, semicolons, `elif`, `match` and CRLF included."""
    sources = [ODD.encode(), NESTED.encode(), NESTED.replace("\n", "\r\n").encode(), b"x = 1", b"",
               b"@a\n# c\n\n@b(\n  1)\n\n# after\ndef f():\n    @c\n    class D:\n        pass\n"]
    sources += [path.read_bytes() for path in [*sorted(ROOT.glob("golden/*/*.py")), *sorted(ROOT.glob("examples/*.py"))]]
    checked = 0
    for source in sources:
        try:
            module = cst.parse_module(source)
        except cst.ParserSyntaxError:
            continue
        checked += _check(module, source)
    assert checked > 40_000


def test_bytes_that_are_not_the_modules_fall_back_to_code_generation():
    module = cst.parse_module("def f():\n    return 1\n")
    parents: dict = {}
    cst_tree.visit_batched(module, [], parents=parents)
    ours = StatementPositions(cst.MetadataWrapper(module, unsafe_skip_copy=True), lambda n: parents.get(id(n)),
                              lambda n: id(n) in parents, b"x = 1\ny = 2\n")
    ret = module.body[0].body.body[0].body[0]
    assert ours[ret].start.line == 2


def test_an_outline_handed_in_is_read_as_a_parse_and_one_of_other_bytes_is_refused():
    """The runner's survey hands its parse's outline to the file's processing (positions.statement_outline):
    read as CPython's parse would be; an outline whose statements are not the module's is not used."""
    import ast

    from rewriter.analysis.positions import statement_outline
    from rewriter.survey import survey
    from rewriter.registry import all_codemods

    source = (ROOT / "examples" / "phiml_diffusion.py").read_bytes()
    found = survey(("phiml_diffusion.py", source, all_codemods()))
    assert found.first_pass and found.outline == statement_outline(ast.parse(source).body)
    module = cst.parse_module(source)
    parents: dict = {}
    cst_tree.visit_batched(module, [], parents=parents)
    expected = cst.MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    for outline in (found.outline, statement_outline(ast.parse(b"x = 1\ny = 2\n").body)):
        ours = StatementPositions(cst.MetadataWrapper(module, unsafe_skip_copy=True), lambda n: parents.get(id(n)),
                                  lambda n: id(n) in parents, source, outline)
        assert all(ours[node] == expected[node] for node in cst_tree.walk(module))
        assert bool(ours._ast_starts) is (outline is found.outline)


def test_a_node_the_walk_did_not_see_is_looked_up_in_the_whole_module():
    module = cst.parse_module("def f():\n    return 1\n")
    ours = StatementPositions(cst.MetadataWrapper(module, unsafe_skip_copy=True), lambda n: None, lambda n: False)
    ret = module.body[0].body.body[0].body[0]
    assert ours[ret].start.line == 2 and ret in ours


def test_a_rule_reporting_ahead_of_the_walk_resolves_no_whole_module_provider(monkeypatch):
    """A visit method that reports on a descendant the walk has not reached yet (a decorator's string):
    its subtree is tracked then, and neither ParentNodeProvider nor PositionProvider runs over the module."""
    from rewriter.analysis.names import NameResolver

    module = cst.parse_module("import a\n\n@jit(static='n')\ndef f(x, n):\n    return x\n")
    resolver = NameResolver(cst.MetadataWrapper(module, unsafe_skip_copy=True))
    resolver.tracked_parents = {}
    monkeypatch.setattr(resolver, "_provider", lambda provider: (_ for _ in ()).throw(AssertionError(provider)))
    seen = []

    class Reporter(cst.BatchableCSTVisitor):
        def visit_FunctionDef(self, node):
            string = node.decorators[0].decorator.args[0].value
            seen.append((resolver.positions[string].start.line, resolver.positions[string].start.column,
                         type(resolver.parent(string)).__name__))

    cst_tree.visit_batched(module, [Reporter()], parents=resolver.tracked_parents,
                           visiting=resolver.visiting)
    assert seen == [(3, 12, "Arg")]
    assert resolver.visiting == [None]
