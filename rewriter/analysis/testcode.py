"""Test code: what a test suite observes, code whose failure is the point, and tests that read structure.

Three facts that decide whether a rewrite keeps a test's meaning:

- **Code meant to fail.** A test that asserts `jax.jit` rejects a Python `if` on a tracer fails once
  the `if` becomes `where`. The forms that say an error (or a warning) is expected: `with
  pytest.raises(...)` / `pytest.warns` / `pytest.deprecated_call` / `self.assertRaises*` /
  `self.assertWarns*` / `warnings.catch_warnings(record=True)` (their bodies), the call forms
  `self.assertRaises(E, f, *args)` / `pytest.raises(E, f, *args)` (their arguments), a test marked
  `pytest.mark.xfail` / `unittest.expectedFailure` (its body), a `try` whose handler observes the
  error (its body: in test code, any handler that does not end by raising; elsewhere, a handler that
  reads the error it binds, `except E as e: msg = str(e)`), and a notebook cell whose stored outputs
  hold an error (its statements). Each is an `Expecting`; ModuleAnalysis follows the calls made in
  them to the functions they reach. Rules whose fixes make failing code work (`Codemod.REMOVES_ERRORS`)
  leave all of that alone (rewriter/codemod.py).
- **What tests observe.** pytest collects module-level functions named `test*` and classes named
  `Test*`; tests inspect `__name__`, frames and tracebacks; and a jit built at module level keeps
  its trace cache from one test to the next, where a test building it inside saw a fresh cache.
  Names the tool creates never match a collector's pattern (`fresh_name`), and fixes that move code
  out of a test (lifting, hoisting) are unsafe there: the values are the same, what the tests
  observe may not be.
- **Tests that read structure.** A fix that changes the program's structure (`Codemod.CHANGES_STRUCTURE`:
  jit nesting, the order of transforms, where a function is defined) keeps values but not what
  `jax.make_jaxpr`, a lowering's text or a trace count shows. In test code it is applied only when
  the test reads none of that (`structure_read`). What counts as a read, and why:
  - the staged program: `make_jaxpr`, any name with `jaxpr`, `hlo` or `mlir` in it (`.jaxpr`,
    `.eqns`, `as_hlo_text`, `collect_lowered_jaxprs`), `.lower(args)`, `.as_text()`, `.compile()`,
    `.compiler_ir()`, `.cost_analysis()`, `xla_computation`, `jax.stages`, `jax.export`; and string
    literals that name a jit in that text (`'jit(g)'`, `pjit`, `jit_g`);
  - caches and counts of traces and compiles: `_cache_size`, `chex.assert_max_traces`, jax's
    test-util counters (`count_*` of traces, compiles, lowerings, cache misses), `log_compiles`,
    `explain_cache_misses`, PhiML's `trace_check`, and counters kept by a side effect in a nested
    function (`nonlocal` / `global`, `count[0] += 1`): each counts traces, which nesting changes;
  - leaked tracers: `checking_leaks`, `check_tracer_leaks`, `UnexpectedTracerError`;
  - names and frames: `named_scope`, `named_call`, `name_stack`, `debug_info`, `source_info`,
    `__name__`, `__qualname__`, `inspect`, `traceback`, `sys._getframe`, `__traceback__`;
  - object lifetimes: `weakref`, `gc`, `getrefcount` (a jit wrapper holds its function);
  - the test's own name, when it names what the fix changes (`test_simple_jit` for a jit of a jit,
    `test_vmap_of_jit`): a regression test of exactly that composition.
  The reads are looked for where the test can see them: inside a test function (a def named `test*`,
  at module level or in a class) that function and the functions and methods of the module it calls;
  anywhere else (module level, a class body, a helper every test may call) the whole module.
  Spelling, not resolution: a `lower` or `inspect` of the user's own is taken for a read too, which
  costs a fix in a test, never a test.

It is read from CPython's `ast` of the module (issue 45), and answers for a place of the file (a
Span): a rule on libcst asks with the span it reports at, and is told places as spans.
"""
from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from collections import deque
from dataclasses import dataclass, replace
from functools import cached_property

from ..boundaries import cell_of_marker
from ..findings import Span
from .ast_module import AstModule, within
from .ast_names import in_source_order, with_enclosing

_RAISES = frozenset({"pytest.raises", "pytest.warns", "pytest.deprecated_call", "unittest.TestCase.assertRaises",
                     "numpy.testing.assert_raises", "numpy.testing.assert_raises_regex", "numpy.testing.assert_warns"})
_ASSERT_RAISES = frozenset({"failUnlessRaises", "assert_raises", "assert_raises_regex", "assert_warns"})
_ASSERT_PREFIXES = ("assertRaises", "assertWarns")
_RAISES_LAST = frozenset(name.rsplit(".", 1)[-1] for name in _RAISES)
_XFAIL = frozenset({"pytest.mark.xfail", "unittest.expectedFailure"})
# Patterns of pytest's default collection (python_functions = "test", python_classes = "Test").
COLLECTED_PREFIXES = ("test", "Test")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# What says its code is meant to fail (`expecting`): a `with pytest.raises(...)`, a call of one, a `try`
# observing the error, an `xfail` mark.
_MAY_EXPECT = frozenset({ast.With, ast.AsyncWith, ast.Call, ast.Try, ast.TryStar, *_DEFS})
_NOTHING: frozenset = frozenset()
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_CALLEES = (ast.Name, ast.Attribute, ast.Lambda, ast.Call)


def is_test_path(path: str) -> bool:
    """`test_*.py`, `*_test.py`, `conftest.py`, or a file under a `tests`/`test` directory."""
    name = os.path.basename(path)
    parts = {p for p in os.path.normpath(path).split(os.sep)[:-1]}
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or bool(parts & {"tests", "test"})


def collectable(name: str) -> bool:
    """A module-level name pytest would collect as a test (or a test class)."""
    return name.startswith(COLLECTED_PREFIXES)


def fresh_name(base: str, taken, reserved: set[str]) -> str:
    """`base`, or `base_2`, `base_3`...: a name in neither `taken` (the module's identifiers) nor `reserved`
    (those handed out in this pass, which it joins)."""
    if collectable(base):  # `test_square_lambda_jit` at module level would be collected as a test
        base = "_" + base
    name, i = base, 2
    while name in taken or name in reserved:
        name, i = f"{base}_{i}", i + 1
    reserved.add(name)
    return name


@dataclass(frozen=True)
class Expecting:
    """Code meant to fail: `region` (a block, a call, a cell's statement) and what says so."""

    region: Span
    anchor: Span  # where the code says it: the `with` item, the assert call, the handler, the statement
    how: str  # `pytest.raises`, "an `except` that reads the error", ...


@dataclass(frozen=True)
class Read:
    """A place in a test that reads the program's structure, and what it reads."""

    place: Span
    what: str
    test: bool = True  # read in the test around the fix (False: somewhere in the module)


class TestCode:
    """Per module: the code meant to fail, whether a place is test code, and what tests read."""

    __test__ = False  # (a class named Test*: not pytest's to collect)

    def __init__(self, module: AstModule, path: str, error_cells: frozenset[int] = frozenset()) -> None:
        self.module = module
        self.path = path
        self.error_cells = error_cells  # a notebook's cells whose stored outputs hold an error

    @cached_property
    def test_file(self) -> bool:
        return is_test_path(self.path)

    @cached_property
    def _tree(self) -> ast.Module:
        return self.module.tree or ast.Module(body=[], type_ignores=[])  # (not parsed: nothing to read)

    @cached_property
    def _defs(self) -> list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
        return self.module.nodes(*_DEFS, ast.ClassDef)

    def in_test(self, span: Span) -> bool:
        """`span` is in a test file, or inside a `test*` function or a `Test*` class (not the def itself).
        A file this Python cannot parse is test code wherever it names a test (`unreadable`)."""
        if self.test_file:
            return True
        if self.unreadable:
            return "def test" in self.module.code or "class Test" in self.module.code
        return any(within(span, whole) and (span.line, span.column) != own for whole, own in self._tests)

    @cached_property
    def unreadable(self) -> bool:
        """CPython cannot parse the module (a newer Python's syntax, which libcst reads): what is a test,
        what is meant to fail and what tests read cannot be told, and each is assumed (fail closed)."""
        return self.module.tree is None

    @cached_property
    def _tests(self) -> list[tuple[Span, tuple[int, int]]]:
        """Each `test*` def and `Test*` class: its whole span (decorators in), and where its own starts
        (libcst's starts at `def`: a span starting there is the def itself, not in it)."""
        return [(self._whole(d), (d.lineno, self.module._column(d.lineno, d.col_offset))) for d in self._defs if collectable(d.name)]

    def _whole(self, node: ast.AST) -> Span:
        return self.module.span(node)

    # -- code meant to fail ---------------------------------------------------------------------
    @cached_property
    def expecting(self) -> list[tuple[Expecting, list[ast.AST]]]:
        """Every place of the module that says its code is meant to fail, outermost first, with the
        nodes of its region."""
        out: list[tuple[Expecting, list[ast.AST]]] = self._error_cells()
        for node, _ in with_enclosing(self._tree, _MAY_EXPECT, _NOTHING):
            if isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    how = self._raises(item.context_expr, context=True)
                    if how:
                        out.append((Expecting(self._block(node.body), self._item(item), f"`with {how}`"), list(node.body)))
                        break
            elif isinstance(node, ast.Call):
                how = self._raises(node, context=False)
                positional = [a for a in node.args if type(a) is not ast.Starred]
                if how and len(positional) > _callee_index(how):
                    out.append((Expecting(self._whole(node), self._whole(node), f"`{how}`"), [node]))
            elif isinstance(node, (ast.Try, ast.TryStar)):
                handler = next((h for h in node.handlers if self._observes(h)), None)
                if handler is not None:
                    out.append((Expecting(self._block(node.body), self._whole(handler), self._handler_how(handler)), list(node.body)))
            elif isinstance(node, _DEFS):
                mark = next((d for d in node.decorator_list if self._xfail(d)), None)
                if mark is not None:
                    anchor = self.module.span(mark)
                    anchor = Span(anchor.line, anchor.column - 1, anchor.end_line, anchor.end_column)  # (libcst's has the `@`)
                    out.append((Expecting(self._block(node.body), anchor, f"the test is marked `{_spelling(mark)}`"), list(node.body)))
        return out

    def _block(self, body: list) -> Span:
        first, last = self.module.start(body[0]), self.module.end(body[-1])
        return Span(*first, *last)

    def _item(self, item: ast.withitem) -> Span:
        """A `with` item: its expression, and its `as` target."""
        first = self.module.start(item.context_expr)
        last = self.module.end(item.optional_vars if item.optional_vars is not None else item.context_expr)
        return Span(*first, *last)

    def expected_failure(self, span: Span, statement: bool = False) -> Expecting | None:
        """What says `span` is meant to fail: it is in a place that expects an error, or in a function a
        call made there reaches. None for the usual code; the innermost such place. `statement`: the place
        is a statement, which holds a call meant to fail of its extent (`self.assertRaises(E, f)`) rather
        than being in it."""
        if self.unreadable:
            return self._assumed_failing
        found = [(region, expecting) for region, expecting, call in self._expected_to_fail if within(span, region)
                 and not (statement and call and region == span)]
        if not found:
            return None
        # (the innermost: the latest start, then the earliest end; a region before a function of the same place)
        return min(found, key=lambda f: ((-f[0].line, -f[0].column), (f[0].end_line, f[0].end_column)))[1]

    @cached_property
    def expects_failure(self) -> bool:
        """Some code of the module may be meant to fail (cheap to ask before asking of each place)."""
        return self._assumed_failing is not None if self.unreadable else bool(self._expected_to_fail)

    @cached_property
    def _assumed_failing(self) -> Expecting | None:
        """In a module this Python cannot parse: code meant to fail, wherever the code spells a form that
        says so (a handler of an error among them), else None."""
        code = self.module.code
        if not (self.error_cells or any(word in code for word in _SAYS_FAILING)):
            return None
        whole = Span(1, 0, len(self.module.lines), 0)
        return Expecting(whole, Span(1, 0, 1, 0), "this Python cannot read the file's syntax, so code meant to fail cannot be told")

    @cached_property
    def _expected_to_fail(self) -> list[tuple[Span, Expecting, bool]]:
        """Each place meant to fail and each function the calls made there reach, in this module and
        through calls made in those functions, with the Expecting that says so (the innermost's first),
        and whether the place is a call meant to fail."""
        out: dict[tuple, tuple[Span, Expecting, bool]] = {}
        by_function: dict[int, Expecting] = {}
        work: deque[tuple[ast.AST, Expecting]] = deque()
        for expecting, region in reversed(self.expecting):
            key = (expecting.region.line, expecting.region.column, expecting.region.end_line, expecting.region.end_column)
            out.setdefault(key, (expecting.region, expecting, len(region) == 1 and isinstance(region[0], ast.Call)))
            work += [(callee, expecting) for part in region for callee in self.callees(part)]
        seen: set[int] = set()
        functions: list[tuple[ast.AST, Expecting]] = []
        while work:
            callee, expecting = work.popleft()
            for fn in self._functions_called(callee, seen):
                if id(fn) not in by_function:
                    by_function[id(fn)] = expecting
                    functions.append((fn, expecting))
                    work += [(inner, expecting) for inner in self.callees(fn)]
        found = list(out.values())
        return found + [(self.module.span(fn), expecting, False) for fn, expecting in functions]

    def callees(self, node: ast.AST) -> list[ast.expr]:
        """What code in `node` calls or hands to a call: each call's callee and its arguments (a function
        handed to `assertRaises`, `lax.map` or `partial` is called through it)."""
        out: list[ast.expr] = []
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.Call):
                out.append(current.func)
                out += [a for a in _arguments(current) if isinstance(a, _CALLEES)]
            stack.extend(in_source_order(current))
        return out

    def _functions_called(self, expr: ast.AST, seen: set[int]) -> list[ast.AST]:
        """The module's functions a call of `expr` (or a call through it) may run: a lambda, the defs a
        name denotes or the values it is bound to (`g = jax.jit(f)`), the function a transform or
        `partial` is applied to (`jax.jit(f)(x)`), a factory's def, a method of that name (`self.f(x)`)."""
        if id(expr) in seen:
            return []
        seen.add(id(expr))
        if isinstance(expr, ast.Lambda):
            return [expr]
        if isinstance(expr, ast.Call):
            out = self._functions_called(expr.func, seen)
            for arg in _arguments(expr):
                out += self._functions_called(arg, seen)
            return out
        if isinstance(expr, ast.Attribute):
            out = list(self.methods_named.get(expr.attr, ()))
            for value in self._attribute_values.get(expr.attr, ()):
                out += self._functions_called(value, seen)
            return out
        if not isinstance(expr, ast.Name):
            return []
        from .ast_jit import assigned_value

        out = list(self.module.jit.functions_denoted(expr))
        if out:
            return out
        for binding in sorted(self.module.names.reaching(expr), key=lambda b: b.created):
            node = getattr(binding, "node", None)
            if isinstance(node, _DEFS):
                out.append(node)
                continue
            assigned = assigned_value(self.module.names, node)
            if assigned is not None:
                out += self._functions_called(assigned, seen)
        return out

    @cached_property
    def _attribute_values(self) -> dict[str, list[ast.expr]]:
        """Values assigned to an attribute anywhere in the module, by its name (`self.f = jax.jit(g)`)."""
        out: dict[str, list[ast.expr]] = {}
        stack: list[ast.AST] = [self._tree]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute):
                        out.setdefault(target.attr, []).append(node.value)
            stack.extend(in_source_order(node))
        return out

    def _raises(self, expr: ast.expr, context: bool) -> str:
        """How `expr` says the code it guards is meant to fail (its spelling), or ""."""
        if not isinstance(expr, ast.Call):
            return ""
        func = expr.func
        last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if isinstance(func, ast.Attribute) and (last in _ASSERT_RAISES or last.startswith(_ASSERT_PREFIXES)):
            return _spelling(func)  # self.assertRaises / case.assertRaisesRegex / np.testing.assert_raises
        if last not in _RAISES_LAST and not (context and last == "catch_warnings"):
            return ""  # (resolved only when spelled like one: most calls are not)
        names = self._qualified(func)
        if names & _RAISES:
            return _spelling(func)
        if context and "warnings.catch_warnings" in names and any(
                k.arg == "record" and not _false(k.value) for k in expr.keywords):
            return _spelling(func) + "(record=True)"
        return ""

    def _xfail(self, decorator: ast.expr) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr in ("xfail", "expectedFailure"):
            return True
        return bool(self._qualified(target) & _XFAIL)

    def _qualified(self, func: ast.expr) -> set[str]:
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return set()
        return self.module.names.qualified_names(func)

    def _observes(self, handler: ast.ExceptHandler) -> bool:
        """The handler observes the error rather than letting it go on: it does not end by raising, and
        it reads the error it binds, or (in test code) it is there at all: a flag, an assertion, a `pass`."""
        last = handler.body[-1]
        if last.lineno != handler.lineno and not isinstance(last, _COMPOUND):  # (libcst reads an indented body's last line)
            if any(isinstance(s, ast.Raise) or isinstance(s, ast.Expr) and _fails(s.value)
                   for s in handler.body if s.lineno == last.lineno):
                return False  # the error goes on, or fails the test: it is not wanted
        if self.in_test(self._whole(handler)):
            return True
        return handler.name is not None and _reads(handler.body, handler.name)

    def _handler_how(self, handler: ast.ExceptHandler) -> str:
        if handler.name is not None and _reads(handler.body, handler.name):
            return f"an `except` that reads the error (`{handler.name}`)"
        return "an `except` that handles the failure in a test"

    def _error_cells(self) -> list[tuple[Expecting, list[ast.AST]]]:
        """The statements of a notebook's cells that were run to show an error (their stored outputs)."""
        if not self.error_cells:
            return []
        by_cell: dict[int, list[ast.stmt]] = {}
        cell = None
        after = 0  # the last line of the statement before
        for statement in self._tree.body:
            start = self.module.start(statement)[0]
            for text in self.module.lines[after:start - 1]:
                index = cell_of_marker(text.strip())
                if index is not None:
                    cell = index
            after = statement.end_lineno or start
            if cell in self.error_cells:
                by_cell.setdefault(cell, []).append(statement)
        # (the anchor: the cell's last statement, the one a notebook shows the error under)
        return [(Expecting(self._whole(statement), self._whole(statements[-1]), f"cell {cell} shows an error in its stored output"),
                 [statement]) for cell, statements in by_cell.items() for statement in statements]

    # -- tests that read structure --------------------------------------------------------------
    def structure_read(self, span: Span, words: tuple[str, ...] = ()) -> Read | None:
        """The first read of the program's structure in the test code around `span` (see the module
        docstring), or None. `words` name what the fix changes, as a test's name would say it."""
        if self.unreadable:
            return Read(Span(1, 0, 1, 0), "the program's structure, as far as can be told: this Python cannot read the file's "
                        "syntax", test=False) if any(word in self.module.code for word in _READ_NAMES) else None
        test, scope = self._scope(span)
        if test is not None and words:
            tokens = _tokens(test.name)
            named = next((w for w in words if w in tokens), None)
            if named is not None:
                return Read(self._name_of(test), f"its name says it tests `{named}` (`{test.name}`)")
        for part in scope:
            depth = int(part is not scope[0])  # a function the test calls (or hands to jit) is traced or called from it
            read = self._reads.get((id(part), depth))
            if read is None:
                read = self._reads[(id(part), depth)] = self._first_read(part, depth) or False
            if isinstance(read, Read):
                return read if test is not None else replace(read, test=False)
        return None

    def _name_of(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Span:
        """Where a def's name is written."""
        line = self.module.lines[fn.lineno - 1] if fn.lineno <= len(self.module.lines) else ""
        column = self.module._column(fn.lineno, fn.col_offset)
        found = re.search(r"\bdef\s+", line[column:])
        start = column + found.end() if found else column
        return Span(fn.lineno, start, fn.lineno, start + len(fn.name))

    @cached_property
    def _reads(self) -> dict[tuple[int, int], Read | bool]:
        return {}

    def _scope(self, span: Span) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef | None, list[ast.AST]]:
        """The test function around `span` and what it runs of this module; else (None, [the module])."""
        around = [d for d in self._defs if isinstance(d, _DEFS) and within(span, self._whole(d))]
        outer = min(around, key=lambda d: (d.lineno, d.col_offset)) if around else None
        if outer is None or not outer.name.startswith("test"):
            return None, [self._tree]
        scope: list[ast.AST] = [outer]
        seen = {id(outer)}
        work: list[ast.AST] = [outer]
        while work and len(scope) < 50:
            for callee in self.callees(work.pop()):
                for fn in self._local_defs(callee):
                    if id(fn) not in seen:
                        seen.add(id(fn))
                        scope.append(fn)
                        work.append(fn)
        return outer, scope

    def _local_defs(self, callee: ast.expr) -> list[ast.AST]:
        """The module's defs a callee may be: a function of that name, or a method (`self.check(...)`)."""
        if isinstance(callee, ast.Name):
            return list(self.defs_named.get(callee.id, []))
        if isinstance(callee, ast.Attribute):
            return list(self.methods_named.get(callee.attr, []))
        return []

    @cached_property
    def defs_named(self) -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
        """The module's module-level defs by name."""
        out: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for statement in self._tree.body:
            if isinstance(statement, _DEFS):
                out.setdefault(statement.name, []).append(statement)
        return out

    @cached_property
    def methods_named(self) -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
        """The defs directly in a class body of the module, by name."""
        out: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        stack: list[ast.AST] = [self._tree]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.ClassDef) and node.body[0].lineno != node.lineno:  # (an indented body)
                for statement in node.body:
                    if isinstance(statement, _DEFS):
                        out.setdefault(statement.name, []).append(statement)
            stack.extend(_blocks_holding_classes(node))
        return out

    def _first_read(self, scope: ast.AST, depth: int = 0) -> Read | None:
        """The first read of structure in `scope` (a function or the module), in source order; `depth`: 1 when
        the scope is itself a function the test runs (its side effects count what runs it)."""
        stack: list[tuple[ast.AST, int]] = [(scope, depth)]
        while stack:
            node, depth = stack.pop()
            if isinstance(node, (ast.Import, ast.ImportFrom)) or _docstring(node):
                continue  # importing `inspect` reads nothing yet; a docstring is read by people
            found = self._read_at(node, depth)
            if found:
                return Read(*found)
            inner = depth + (node is not scope and isinstance(node, _FUNCTIONS))
            stack.extend((c, inner) for c in reversed(in_source_order(node)))
        return None

    def _read_at(self, node: ast.AST, depth: int) -> tuple[Span, str] | None:
        """Where `node` reads the structure, and what (None: nothing); `depth`: the functions it is nested
        in, below the scope. A parameter's, a keyword's, an exception's or a declared name counts as
        a Name (libcst has one)."""
        what = ""
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if not (name in _OF_OBJECTS and isinstance(node, ast.Name)):  # (the module's `__name__`)
                what = _read_name(name)
        elif isinstance(node, (ast.arg, ast.keyword)) and node.arg is not None:
            name = node.arg
            what = "" if name in _OF_OBJECTS else _read_name(name)
            if what:  # (at the name: libcst's Name)
                line, column = self.module.start(node)
                return Span(line, column, line, column + len(name)), what
        elif isinstance(node, ast.ExceptHandler) and node.name is not None and node.name not in _OF_OBJECTS:
            what = _read_name(node.name)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if method == "lower" and (node.args or node.keywords):
                what = "the lowered program (`.lower(...)`)"
            elif method == "compile" and not (node.args or node.keywords):
                what = "the compiled program (`.compile()`)"
            elif depth and method in _RECORDS:
                what = f"a record kept by a side effect (`.{method}(...)`)"
        elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) or isinstance(node, ast.JoinedStr):
            for text, place in self._literals(node):
                if _JIT_TEXT.search(text):
                    return place, f"a jit's name in the staged program ({_short(text)})"
        elif depth and isinstance(node, (ast.Nonlocal, ast.Global)):
            what = f"a count kept by a side effect (`{'nonlocal' if isinstance(node, ast.Nonlocal) else 'global'}`)"
        elif isinstance(node, (ast.Nonlocal, ast.Global)):
            what = next((found for name in node.names if (found := _read_name(name))), "")
        elif depth and isinstance(node, ast.AugAssign) and isinstance(node.target, (ast.Subscript, ast.Attribute)):
            what = "a count kept by a side effect (`+=` on a container)"
        return (self._whole(node), what) if what else None

    def _literals(self, node: ast.Constant | ast.JoinedStr) -> list[tuple[str, Span]]:
        """The string literals a string is written as (`"a" "b"` is two), each with its text as written
        (quotes and prefix included, as libcst has it) and its place; an f-string's text parts (libcst's
        FormattedStringText) at the f-string's place."""
        segment = ast.get_source_segment(self.module.code, node)
        whole = self._whole(node)
        if segment is None:
            return []
        out = []
        try:
            tokens = [t for t in tokenize.generate_tokens(io.StringIO("(" + segment + ")").readline) if t.type == tokenize.STRING]
        except (tokenize.TokenError, SyntaxError):
            tokens = []
        if not tokens and isinstance(node, ast.JoinedStr):  # (3.12 tokenizes an f-string in parts)
            return [(part.value, whole) for part in node.values if isinstance(part, ast.Constant) and isinstance(part.value, str)]
        for token in tokens:
            (row, column), (end_row, end_column) = token.start, token.end
            line, end_line = whole.line + row - 1, whole.line + end_row - 1
            column = whole.column + column - 1 if row == 1 else column
            end_column = whole.column + end_column - 1 if end_row == 1 else end_column
            text = token.string
            if text.lstrip("rRbBuU")[:1] in "\"'":  # a plain literal
                out.append((text, Span(line, column, end_line, end_column)))
                continue
            for first, last in _formatted_texts(text):  # an f-string: its text parts
                out.append((text[first:last], Span(*_offset_place(text, first, line, column), *_offset_place(text, last, line, column))))
        return out


def _blocks_holding_classes(node: ast.AST) -> list[ast.AST]:
    """Where `methods_named` looks for classes: a module's, a class's, an `if`'s (and `elif`'s), a `try`'s
    and a `with`'s body, not an `else`, a handler or a function (as its libcst reading did)."""
    if isinstance(node, (ast.Module, ast.ClassDef, ast.With, ast.AsyncWith, ast.Try)):
        return list(node.body)
    if isinstance(node, ast.If):
        orelse = node.orelse
        elif_ = len(orelse) == 1 and isinstance(orelse[0], ast.If) and orelse[0].col_offset == node.col_offset
        return [node.test, *node.body, *(orelse if elif_ else [])]
    return []


# The words of the forms that say code is meant to fail (`_raises`, `_xfail`, `_observes`).
_SAYS_FAILING = ("raises", "Raises", "warns", "Warns", "deprecated_call", "catch_warnings", "xfail", "expectedFailure", "except")
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.Match,
             ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


# -- what reads structure ---------------------------------------------------------------------------
# An identifier (a Name, or an Attribute's last part) that reads the structure, and what it reads.
_READ_NAMES = {
    "make_jaxpr": "the jaxpr (`make_jaxpr`)", "as_text": "the lowered program's text (`.as_text()`)",
    "compiler_ir": "the compiler's IR (`.compiler_ir()`)", "cost_analysis": "the compiled program (`.cost_analysis()`)",
    "memory_analysis": "the compiled program (`.memory_analysis()`)", "xla_computation": "the XLA computation",
    "stages": "the staged program (`jax.stages`)", "export": "the exported program (`jax.export`)",
    "_cache_size": "the size of a jit's cache (`_cache_size`)", "assert_max_traces": "the number of traces (`assert_max_traces`)",
    "log_compiles": "the compiles (`log_compiles`)", "jax_log_compiles": "the compiles (`jax_log_compiles`)",
    "explain_cache_misses": "the cache misses (`explain_cache_misses`)", "trace_check": "the traces (`trace_check`)",
    "checking_leaks": "leaked tracers (`checking_leaks`)", "check_tracer_leaks": "leaked tracers (`check_tracer_leaks`)",
    "jax_check_tracer_leaks": "leaked tracers (`jax_check_tracer_leaks`)", "UnexpectedTracerError": "leaked tracers (`UnexpectedTracerError`)",
    "named_scope": "the name stack (`named_scope`)", "named_call": "the name stack (`named_call`)",
    "name_stack": "the name stack", "debug_info": "the debug info of a trace (`debug_info`)",
    "source_info": "source information of a trace", "source_info_util": "source information of a trace",
    "__name__": "a function's name (`__name__`)", "__qualname__": "a function's name (`__qualname__`)",
    "inspect": "frames or signatures (`inspect`)", "traceback": "a traceback (`traceback`)",
    "_getframe": "a frame (`sys._getframe`)", "currentframe": "a frame (`currentframe`)", "__traceback__": "a traceback",
    "weakref": "an object's lifetime (`weakref`)", "getrefcount": "reference counts (`getrefcount`)",
    "gc": "an object's lifetime (`gc`)",
}
_OF_OBJECTS = frozenset({"__name__", "__qualname__"})
_READ_PARTS = ("jaxpr", "hlo", "mlir")
_COUNT_PARTS = ("trac", "compil", "lower", "cache", "miss", "jaxpr", "hlo")
# Methods that record into an object from inside a function: a trace runs them once per trace, a call
# once per call, so how often they ran shows where the jits are.
_RECORDS = frozenset({"append", "appendleft", "extend", "insert", "setdefault"})  # (not `.set`, `.add`: `x.at[i].set(v)`)
_JIT_TEXT = re.compile(r"\bp?jit\(|\bpjit\b|\bjit_\w|@jit\b|xla_call|closed_call|core_call")


def _formatted_texts(token: str) -> list[tuple[int, int]]:
    """Where the text parts of an f-string token are (libcst's FormattedStringText): between its quotes,
    outside its `{...}` replacement fields (`{{` and `}}` are text)."""
    i = len(token) - len(token.lstrip("rRbBuUfF"))
    quote = token[i:i + 3] if token[i:i + 3] in ('"""', "'''") else token[i]
    j = text_start = i + len(quote)
    end = len(token) - len(quote)
    parts = []
    while j < end:
        c = token[j]
        if c in "{}" and token[j + 1:j + 2] == c:
            j += 2
        elif c == "{":
            if j > text_start:
                parts.append((text_start, j))
            depth, j = 1, j + 1
            while j < end and depth:
                c = token[j]
                if c in "\"'":  # a string inside the field: its braces are no field's
                    j += 1
                    while j < end and token[j] != c:
                        j += 2 if token[j] == "\\" else 1
                elif c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                j += 1
            text_start = j
        else:
            j += 1
    if end > text_start:
        parts.append((text_start, end))
    return parts


def _offset_place(token: str, offset: int, line: int, column: int) -> tuple[int, int]:
    """The line and column of `offset` in a token that starts at `line`, `column`."""
    newlines = token.count("\n", 0, offset)
    if not newlines:
        return line, column + offset
    return line + newlines, offset - token.rfind("\n", 0, offset) - 1


def _read_name(name: str) -> str:
    """What an identifier reads of the structure ("" : nothing)."""
    if name in _READ_NAMES:
        return _READ_NAMES[name]
    lowered = name.lower()
    if any(part in lowered for part in _READ_PARTS):
        return f"the staged program (`{name}`)"
    if lowered.startswith("count_") and any(part in lowered for part in _COUNT_PARTS):
        return f"a count of traces or compiles (`{name}`)"
    return ""


# -- helpers -------------------------------------------------------------------------------------------
def _tokens(name: str) -> set[str]:
    """The words of an identifier: `test_vmapOfJit` -> {test, vmap, of, jit}."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return {w.lower() for w in spaced.split("_") if w}


def _docstring(node: ast.AST) -> bool:
    """A string standing as a statement of its own."""
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (str, bytes))


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _spelling(expr: ast.expr) -> str:
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
    elif isinstance(expr, ast.Call):
        return _spelling(expr.func)
    return ".".join(reversed(parts)) or "..."


def _arguments(call: ast.Call) -> list[ast.expr]:
    """A call's arguments in the order written, a `*args`'s or `**kwargs`'s value among them."""
    values = [a.value if isinstance(a, ast.Starred) else a for a in call.args]
    if not call.keywords:
        return values
    ordered: list[ast.expr | ast.keyword] = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
    return [a.value if isinstance(a, (ast.Starred, ast.keyword)) else a for a in ordered]


def _callee_index(how: str) -> int:
    """Where the call form of an expecting call takes the function it calls: after the error, and after
    the pattern for the `Regex` and `Match` forms (`assertRaisesRegex(E, "msg", f, x)`)."""
    return 2 if how.lower().endswith(("regex", "regexp", "match")) else 1


def _fails(expr: ast.expr) -> bool:
    """`self.fail(...)` / `pytest.fail(...)`: the handler makes the error a failure of the test."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "fail"


def _false(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and (expr.value is False or expr.value is None)


def _reads(body: list, name: str) -> bool:
    """Some name in `body` is spelled `name` (conservative: a shadowing def still counts)."""
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and node.id == name or isinstance(node, (ast.arg, ast.keyword)) and node.arg == name \
                    or isinstance(node, (*_DEFS, ast.ClassDef, ast.ExceptHandler)) and node.name == name \
                    or isinstance(node, ast.Attribute) and node.attr == name \
                    or isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names \
                    or isinstance(node, ast.alias) and name in (node.asname, *node.name.split(".")) \
                    or isinstance(node, ast.ImportFrom) and name in (node.module or "").split("."):
                return True
    return False
