"""Input source 2: the calls of a function in the project, with the arguments their source describes."""
from __future__ import annotations

import ast

from .values import describe


def _scopes(tree: ast.Module):
    """Each scope (the module, every function) with the plain assignments of its own body."""
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    for scope in scopes:
        env: dict[str, ast.expr] = {}
        calls: list[ast.Call] = []
        todo = list(scope.body) if isinstance(scope.body, list) else [scope.body]
        while todo:
            node = todo.pop(0)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue  # their own scopes (a class body's calls are not followed)
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                env[node.targets[0].id] = node.value  # the last one wins: an approximation, said in the docstring
            if isinstance(node, ast.Call):
                calls.append(node)
            todo.extend(ast.iter_child_nodes(node))
        yield env, calls


def call_sites(sources: list[str], name: str, params: list[str]) -> list[dict[str, dict | None]]:
    """Per call of `name` (`name(...)` or `module.name(...)`): parameter -> description (None: the
    argument is there but its source does not say what it is). Calls with `*args`/`**kwargs` are skipped."""
    out = []
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for env, calls in _scopes(tree):
            for call in calls:
                func = call.func
                called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
                if called != name or any(isinstance(a, ast.Starred) for a in call.args) or \
                        any(kw.arg is None for kw in call.keywords) or len(call.args) > len(params):
                    continue
                args = {p: describe(a, env) for p, a in zip(params, call.args)}
                if any(kw.arg not in params for kw in call.keywords):
                    continue
                args.update({kw.arg: describe(kw.value, env) for kw in call.keywords})
                out.append(args)
    return out
