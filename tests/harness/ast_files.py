"""A source read as the rules on `ast` read it (ast_rule.AstFile, through the engine: a newer Python's
grammar lowered), for the tests that ask the analysis directly."""
from __future__ import annotations

import ast

from rewriter.ast_rule import AstFile
from rewriter.engine import _ast_file
from rewriter.settings import Settings


def ast_file(source: str, path: str = "module.py", *, world=None, project=None) -> AstFile:
    """`source` read on `ast` (its `reading` is None where not even lowering reads it)."""
    return _ast_file(source.encode(), path, Settings(codemods=(), world=world, project=project))[0]


def defs(file: AstFile, name: str) -> list[ast.FunctionDef]:
    """The module-level defs of `name` in what the rules read, in order."""
    assert file.reading is not None and file.reading.tree is not None
    return [s for s in file.reading.tree.body if isinstance(s, ast.FunctionDef) and s.name == name]


def verdicts(file: AstFile, loops: bool = True) -> dict[str, str]:
    """The code of every condition (and, with `loops`, trip count) of the traced functions' own bodies, as
    libcst writes it (with its own parentheses) -> what the traced-value analysis says of it: static,
    traced or unknown."""
    kinds: tuple[type, ...] = (ast.If, ast.While, ast.IfExp, *((ast.For, ast.AsyncFor) if loops else ()))
    out = {}
    for flow in file.traced.flows.values():
        for node in ast.walk(flow.context.function):
            if not isinstance(node, kinds):
                continue
            test = node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else node.test
            value = flow.value_of(test)
            if value is not None:
                out[file.code_parenthesized(test)] = value.trace.name.lower()
    return out
