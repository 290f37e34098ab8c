"""One run through a scope's statements: the environment each call sees, in source order.

A name is bound to the description of its last assignment on the way (or to the reason it is
unknown: an unpacking, an import, a function). Branches: a name assigned in one keeps its
description afterwards only if every way through gives the same one. Loops: a call inside a loop
sees the values from before the loop, as its first iteration does (a value the program really
passes there); names the loop rebinds are remembered (`first`) so the caller can say so, and are
unknown after the loop. A comprehension binds its variable to the iterable's element.
"""
from __future__ import annotations

import ast
import typing
from typing import Callable

from .operators import iteration
from .values import Context, describe

OnCall = Callable[[ast.Call, dict, set], None]


def assigned(stmts: list[ast.stmt]) -> set[str]:
    """Names a block binds (nested functions' bodies are their own)."""
    out: set[str] = set()
    todo: list[ast.AST] = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out |= set(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        todo.extend(ast.iter_child_nodes(node))
    return out


class Walker:
    """`on_call(call, env, first)` at every call; `returns` collects (description, reason) of each
    `return` outside loops, and marks one inside a loop (its environment is not the first one)."""

    def __init__(self, on_call: OnCall | None, call_hook=None):
        self.on_call = on_call
        self.call_hook = call_hook
        self.returns: list[dict | None] = []
        self.loops = 0

    def describe(self, node: ast.expr, env: dict) -> tuple[dict | None, str]:
        ctx = Context(env, self.call_hook)
        d = describe(node, env, context=ctx)
        return d, "" if d is not None else (ctx.why[0] if ctx.why else f"`{ast.unparse(node)[:40]}` is not described")

    def block(self, body: list[ast.stmt], env: dict, first: set) -> None:
        for stmt in body:
            self.stmt(stmt, env, first)

    def _unknown(self, names, env: dict, first: set, why: str) -> None:
        for n in names:
            env[n] = why.format(n)
            first.discard(n)

    def bind(self, target: ast.expr, value: ast.expr | None, env: dict, first: set, desc=None) -> None:
        if isinstance(target, ast.Name):
            if value is not None:
                desc, why = self.describe(value, env)
            else:
                why = f"`{target.id}` is a loop variable over something not described"
            env[target.id] = desc if desc is not None else why
            first.discard(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and \
                    not any(isinstance(e, ast.Starred) for e in value.elts + target.elts):
                descs = [self.describe(v, env) for v in value.elts]  # right side first, then bound
                for t, (d, why) in zip(target.elts, descs):
                    if isinstance(t, ast.Name):
                        env[t.id] = d if d is not None else why
                        first.discard(t.id)
                    else:
                        self.bind(t, None, env, first)
                return
            names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
            self._unknown(names, env, first, "`{}` is bound by unpacking")

    def stmt(self, s: ast.stmt, env: dict, first: set) -> None:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for dec in s.decorator_list:
                self.calls(dec, env, first)
            self._unknown([s.name], env, first, "`{}` is a function or class")
        elif isinstance(s, ast.Assign):
            self.calls(s.value, env, first)
            for t in s.targets:
                self.bind(t, s.value, env, first)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.calls(s.value, env, first)
                self.bind(s.target, s.value, env, first)
        elif isinstance(s, ast.AugAssign):
            self.calls(s.value, env, first)
            if isinstance(s.target, ast.Name):
                self.bind(s.target, ast.BinOp(ast.Name(s.target.id, ast.Load()), s.op, s.value), env, first)
        elif isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            self.loop(s, env, first)
        elif isinstance(s, ast.If):
            self.calls(s.test, env, first)
            self.branches([s.body, s.orelse], env, first)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                self.calls(item.context_expr, env, first)
                if item.optional_vars is not None:
                    self._unknown(assigned([ast.Expr(item.optional_vars)]), env, first, "`{}` is bound by `with`")
            self.block(s.body, env, first)
        elif isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            s = typing.cast(ast.Try, s)  # (TryStar has the same fields)
            names = assigned([s])
            inner = dict(env)
            self.block(s.body, inner, set(first))
            self.block(s.orelse, inner, set(first))
            for handler in s.handlers:
                h = dict(env)
                self._unknown(names, h, set(), "`{}` is assigned in a `try`")
                self.block(handler.body, h, set())
            self._unknown(names, env, first, "`{}` is assigned in a `try`")
            self.block(s.finalbody, env, first)
        elif isinstance(s, ast.Match):
            self.calls(s.subject, env, first)
            names = assigned([s])
            for case in s.cases:
                c = dict(env)
                self._unknown(names, c, set(), "`{}` is bound by `match`")
                self.block(case.body, c, set())
            self._unknown(names, env, first, "`{}` is assigned in a `match`")
        elif isinstance(s, ast.Return):
            self.calls(s.value, env, first)
            if self.loops:
                self.returns.append(None)
            else:
                self.returns.append(self.describe(s.value, env)[0] if s.value is not None else None)
        elif isinstance(s, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Delete)):
            for child in ast.iter_child_nodes(s):
                self.calls(child, env, first)
            self._unknown(assigned([s]), env, first, "`{}` is imported, deleted or global")
        else:
            for child in ast.iter_child_nodes(s):
                if isinstance(child, ast.expr):
                    self.calls(child, env, first)

    def branches(self, bodies: list[list[ast.stmt]], env: dict, first: set) -> None:
        outs = []
        for body in bodies:
            b = dict(env)
            self.block(body, b, set(first))
            outs.append(b)
        for n in set().union(*(assigned(body) for body in bodies)):
            values = [o.get(n) for o in outs]
            if all(isinstance(v, dict) and v == values[0] for v in values):
                env[n] = values[0]
                first.discard(n)
            else:
                self._unknown([n], env, first, "`{}` is assigned in a branch")

    def loop(self, s, env: dict, first: set) -> None:
        body_names = assigned(s.body)
        inner = dict(env)
        inner_first = set(first) | {n for n in body_names if isinstance(env.get(n), dict)}
        if isinstance(s, ast.While):
            self.calls(s.test, env, first)
        else:
            self.calls(s.iter, env, first)
            _, element = iteration(s.iter, Context(env, self.call_hook), 0)
            self.bind(s.target, None, inner, inner_first, desc=element)
        self.loops += 1
        self.block(s.body, inner, inner_first)
        self.loops -= 1
        self._unknown(body_names | assigned([ast.Expr(s.target)] if not isinstance(s, ast.While) else []), env, first,
                      "`{}` is rebound in a loop")
        self.block(s.orelse, env, first)

    def calls(self, node: ast.AST | None, env: dict, first: set) -> None:
        if node is None or isinstance(node, ast.Lambda):
            return  # a lambda is its own scope
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner, inner_first = dict(env), set(first)
            for gen in node.generators:
                self.calls(gen.iter, inner, inner_first)
                _, element = iteration(gen.iter, Context(inner, self.call_hook), 0)
                self.bind(gen.target, None, inner, inner_first, desc=element)
                for cond in gen.ifs:
                    self.calls(cond, inner, inner_first)
            for part in ((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)):
                self.calls(part, inner, inner_first)
            return
        for child in ast.iter_child_nodes(node):
            self.calls(child, env, first)
        if isinstance(node, ast.Call) and self.on_call is not None:
            self.on_call(node, env, first)
