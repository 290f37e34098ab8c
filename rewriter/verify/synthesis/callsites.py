"""Input source 2: the calls of a function in the project, with the arguments their source describes.

Every scope (the module, each function, each lambda) is run through once (`flow`). A module-level
function's parameters are what its own calls pass, followed up to `DEPTH` callers up (a call site
inside `simulate(u, dt)` knows `u` when a call of `simulate` does); a nested function's or a
method's are unknown. Names bound once at module level are seen from functions. A call of a
project function whose every `return` (outside loops) is described is that description.
"""
from __future__ import annotations

import ast
import functools
import json

from .flow import Walker, assigned
from .values import describe

DEPTH = 2  # callers followed up from a call site, through parameters
MAX_ENTRIES = 6  # descriptions of one function's parameters kept per depth
PUBLIC = ("scalar", "array")


class Site(dict):
    """parameter -> description (None: the argument is there but unknown); `why`: per unknown
    parameter, the reason; `notes`: what the description rests on (a loop's first iteration)."""

    def __init__(self, *args, why=None, notes=None):
        super().__init__(*args)
        self.why: dict[str, str] = why or {}
        self.notes: list[str] = notes or []


def _key(desc) -> str:
    return json.dumps(desc, sort_keys=True, default=str)


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


class Project:
    def __init__(self, sources: list[str]):
        self.trees = []
        for source in sources:
            try:
                self.trees.append(ast.parse(source))
            except (SyntaxError, ValueError):
                continue
        self.functions: dict[str, list[tuple[int, ast.FunctionDef]]] = {}
        for i, tree in enumerate(self.trees):
            for stmt in tree.body:
                if isinstance(stmt, ast.FunctionDef):
                    self.functions.setdefault(stmt.name, []).append((i, stmt))
        self._globals: dict[int, dict] = {}
        self._calls: dict[tuple, list] = {}
        self._entries: dict[tuple, list] = {}
        self._returning = 0
        self._callers: dict[str, list] | None = None

    # the environment a function body starts from
    def globals(self, i: int) -> dict:
        """Names bound exactly once at module level, by a plain assignment no function rebinds."""
        if i not in self._globals:
            self._globals[i] = {}
            tree = self.trees[i]
            env: dict = {}
            Walker(None, self._return_of(i)).block(tree.body, env, set())
            counts: dict[str, int] = {}
            for stmt in tree.body:
                for name in assigned([stmt]):
                    counts[name] = counts.get(name, 0) + 1
            declared = {n for node in ast.walk(tree) if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}
            self._globals[i] = {n: v for n, v in env.items() if isinstance(v, dict) and counts.get(n) == 1 and n not in declared}
        return self._globals[i]

    def _params(self, fn: ast.FunctionDef) -> list[ast.arg]:
        return fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs

    def entries(self, i: int, fn: ast.FunctionDef, depth: int) -> list[tuple[dict, list[str]]]:
        """(environment at the start of `fn`, notes) per described way it is called."""
        key = (i, id(fn), depth)
        if key in self._entries:
            return self._entries[key]
        self._entries[key] = []  # a recursive call of fn while its entries are computed: none yet
        base = dict(self.globals(i))
        names = [a.arg for a in self._params(fn)]
        for extra in (fn.args.vararg, fn.args.kwarg):
            if extra is not None:
                base[extra.arg] = f"`{extra.arg}` collects extra arguments"
        unknown = {n: f"`{n}` is a parameter of `{fn.name}` and no call of `{fn.name}` describes it" for n in names}
        out, seen = [], set()
        if depth > 0 and len(self.functions.get(fn.name, [])) == 1:
            defaults = self._defaults(i, fn)
            for site in self.sites(fn.name, names, depth - 1):
                env = dict(base)
                for n in names:
                    if n in site:
                        env[n] = site[n] if site[n] is not None else \
                            f"`{n}` is a parameter of `{fn.name}`, and at its call {site.why.get(n, 'it is unknown')}"
                    else:
                        env[n] = defaults.get(n, unknown[n])
                k = _key({n: env[n] for n in names})
                if k not in seen and len(out) < MAX_ENTRIES:
                    seen.add(k)
                    out.append((env, site.notes))
        if not out:
            out = [({**base, **unknown}, [])]
        self._entries[key] = out
        return out

    def _defaults(self, i: int, fn: ast.FunctionDef) -> dict:
        positional = fn.args.posonlyargs + fn.args.args
        pairs = list(zip(positional[len(positional) - len(fn.args.defaults):], fn.args.defaults))
        pairs += [(a, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None]
        out = {}
        for a, d in pairs:
            desc = describe(d, self.globals(i))
            out[a.arg] = desc if desc is not None else f"`{a.arg}` defaults to `{ast.unparse(d)[:40]}`"
        return out

    # the calls every scope makes
    def _scopes(self, i: int):
        """(scope, entry environments) of tree i at a depth: the module, functions, lambdas."""
        tree = self.trees[i]
        yield tree, None
        stack = [(tree, set(), True)]
        while stack:
            node, enclosing, top = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    yield child, (node is tree and isinstance(child, ast.FunctionDef), enclosing)
                    own = {a.arg for a in self._params_any(child)} | \
                        (assigned(child.body) if isinstance(child.body, list) else set())
                    stack.append((child, enclosing | own, False))
                else:
                    stack.append((child, enclosing, top and not isinstance(child, ast.ClassDef)))

    def _params_any(self, fn) -> list[ast.arg]:
        a = fn.args
        return a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x is not None]

    def _index(self) -> dict[str, list]:
        """Called name -> the scopes whose own code calls it (a filter: only those are run through)."""
        if self._callers is None:
            self._callers = {}
            for i in range(len(self.trees)):
                for scope, info in self._scopes(i):
                    todo = list(scope.body) if isinstance(scope.body, list) else [scope.body]
                    names = set()
                    while todo:
                        node = todo.pop()
                        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                            continue
                        if isinstance(node, ast.Call):
                            names.add(_called(node))
                        todo.extend(ast.iter_child_nodes(node))
                    for n in names - {None}:
                        self._callers.setdefault(n, []).append((i, scope, info))
        return self._callers

    def calls(self, name: str, depth: int) -> list[tuple[ast.Call, list, dict, list[str]]]:
        """The calls of `name` with their described arguments: (call, [(desc, why)], {kw: (desc, why)}, notes)."""
        key = (name, depth)
        if key in self._calls:
            return self._calls[key]
        self._calls[key] = []  # a call of `name` met while its own calls are gathered: none yet
        out = []
        for i, scope, info in self._index().get(name, []):
            if info is None:  # the module
                envs = [({}, [])]
            elif info[0]:
                envs = self.entries(i, scope, depth)
            else:
                g = {**self.globals(i), **{n: f"`{n}` is a variable of an enclosing function" for n in info[1]}}
                envs = [({**g, **{a.arg: f"`{a.arg}` is a parameter of a nested function, lambda or method"
                                  for a in self._params_any(scope)}}, [])]
            for env, notes in envs:
                self._walk(i, scope, dict(env), notes, out, name)
        self._calls[key] = out
        return out

    def _walk(self, i: int, scope, env: dict, notes: list[str], out: list, wanted: str) -> None:
        name = getattr(scope, "name", "the module") if not isinstance(scope, ast.Lambda) else "a lambda"
        walker = Walker(None, self._return_of(i))

        def on_call(call: ast.Call, at: dict, first: set) -> None:
            if _called(call) != wanted:
                return
            args = [walker.describe(a, at) for a in call.args if not isinstance(a, ast.Starred)]
            if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
                args = None
            keywords = {kw.arg: walker.describe(kw.value, at) for kw in call.keywords if kw.arg}
            loop = [f"`{a.id}` at `{ast.unparse(call)[:50]}` in {name}: the value before the loop that rebinds it "
                    f"(the call's first iteration)" for a in list(call.args) + [k.value for k in call.keywords]
                    if isinstance(a, ast.Name) and a.id in first]
            out.append((call, args, keywords, notes + loop))

        walker.on_call = on_call
        if isinstance(scope, ast.Lambda):
            walker.calls(scope.body, env, set())
        else:
            walker.block(scope.body, env, set())

    def sites(self, name: str, params: list[str], depth: int = DEPTH) -> list[Site]:
        out = []
        for call, args, keywords, notes in self.calls(name, depth):
            if args is None or len(args) > len(params) or any(k not in params for k in keywords):
                continue
            pairs = list(zip(params, args)) + list(keywords.items())
            site = Site(notes=list(notes))
            for p, (desc, why) in pairs:
                if desc is not None and desc["kind"] not in PUBLIC:
                    desc, why = None, f"`{p}` is a {desc['kind']}: synthesis draws numbers and arrays"
                site[p] = desc
                if desc is None:
                    site.why[p] = why
            out.append(site)
        return out

    # a project function's result
    def _return_of(self, i: int):
        def hook(call: ast.Call, ctx, depth: int) -> dict | None:
            found = self.functions.get(call.func.id, [])
            if len(found) != 1 or self._returning >= 2:
                return None
            j, fn = found[0]
            name = f"`{fn.name}(...)`"
            if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(fn)) or fn.args.vararg or \
                    fn.args.kwarg or not isinstance(fn.body[-1], ast.Return):
                return ctx.unknown(f"{name}: a generator, or a way through it that returns None")
            params = [a.arg for a in self._params(fn)]
            given = dict(zip(params, call.args))
            given.update({kw.arg: kw.value for kw in call.keywords})
            if any(isinstance(a, ast.Starred) for a in call.args) or \
                    len(call.args) > len(fn.args.posonlyargs + fn.args.args) or \
                    any(k is None or k not in params for k in given):
                return ctx.unknown(f"{name}: arguments that do not match its parameters plainly")
            env = dict(self.globals(j))
            defaults = self._defaults(j, fn)
            for p in params:
                if p in given:
                    d = describe(given[p], ctx.env, depth, ctx.__class__(ctx.env, ctx.call))
                    env[p] = d if d is not None else f"`{p}` is unknown"
                else:
                    env[p] = defaults.get(p, f"`{p}` is unknown")
            self._returning += 1
            try:
                walker = Walker(None, self._return_of(j))
                walker.block(fn.body, env, set())
            finally:
                self._returning -= 1
            results = walker.returns
            if not results or None in results or any(_key(r) != _key(results[0]) for r in results):
                return ctx.unknown(f"{name} returns something synthesis does not describe (or differs between returns)")
            return {**results[0], "value": None} if "value" in results[0] else results[0]

        return hook


@functools.lru_cache(maxsize=4)
def _project(sources: tuple[str, ...]) -> Project:
    return Project(list(sources))


def call_sites(sources: list[str], name: str, params: list[str]) -> list[Site]:
    """Per call of `name` (`name(...)` or `module.name(...)`): parameter -> description (None: the
    argument is there but its source does not say what it is). Calls with `*args`/`**kwargs` are skipped."""
    return _project(tuple(sources)).sites(name, params)
