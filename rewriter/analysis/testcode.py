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
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from functools import cached_property

import libcst as cst

from ..boundaries import cell_of_marker
from ..cst_tree import children
from .names import NameResolver

_RAISES = frozenset({"pytest.raises", "pytest.warns", "pytest.deprecated_call", "unittest.TestCase.assertRaises",
                     "numpy.testing.assert_raises", "numpy.testing.assert_raises_regex", "numpy.testing.assert_warns"})
_ASSERT_RAISES = frozenset({"failUnlessRaises", "assert_raises", "assert_raises_regex", "assert_warns"})
_ASSERT_PREFIXES = ("assertRaises", "assertWarns")
_RAISES_LAST = frozenset(name.rsplit(".", 1)[-1] for name in _RAISES)
_XFAIL = frozenset({"pytest.mark.xfail", "unittest.expectedFailure"})
# Patterns of pytest's default collection (python_functions = "test", python_classes = "Test").
COLLECTED_PREFIXES = ("test", "Test")
_FUNCTIONS = (cst.FunctionDef, cst.Lambda)


def is_test_path(path: str) -> bool:
    """`test_*.py`, `*_test.py`, `conftest.py`, or a file under a `tests`/`test` directory."""
    name = os.path.basename(path)
    parts = {p for p in os.path.normpath(path).split(os.sep)[:-1]}
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or bool(parts & {"tests", "test"})


def collectable(name: str) -> bool:
    """A module-level name pytest would collect as a test (or a test class)."""
    return name.startswith(COLLECTED_PREFIXES)


@dataclass(frozen=True)
class Expecting:
    """Code meant to fail: `region` (a block, a call's arguments, a cell's statement) and what says so."""

    region: cst.CSTNode
    anchor: cst.CSTNode  # where the code says it: the `with` item, the assert call, the handler, the statement
    how: str  # `pytest.raises`, "an `except` that reads the error", ...


@dataclass(frozen=True)
class Read:
    """A place in a test that reads the program's structure, and what it reads."""

    node: cst.CSTNode
    what: str
    test: bool = True  # read in the test around the fix (False: somewhere in the module)


class TestCode:
    """Per module: the code meant to fail, whether a node is test code, and what tests read."""

    __test__ = False  # (a class named Test*: not pytest's to collect)

    def __init__(self, resolver: NameResolver, path: str, error_cells: frozenset[int] = frozenset()) -> None:
        self.resolver = resolver
        self.path = path
        self.error_cells = error_cells  # a notebook's cells whose stored outputs hold an error

    @cached_property
    def test_file(self) -> bool:
        return is_test_path(self.path)

    def in_test(self, node: cst.CSTNode) -> bool:
        """`node` is in a test file, or inside a `test*` function or a `Test*` class."""
        if self.test_file:
            return True
        current = self.resolver.parent(node)
        while current is not None:
            if isinstance(current, (cst.FunctionDef, cst.ClassDef)) and collectable(current.name.value):
                return True
            current = self.resolver.parent(current)
        return False

    # -- code meant to fail ---------------------------------------------------------------------
    @cached_property
    def expecting(self) -> list[Expecting]:
        """Every place of the module that says its code is meant to fail, outermost first."""
        out: list[Expecting] = self._error_cells()
        stack: list[cst.CSTNode] = [self.resolver.wrapper.module]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.With):
                for item in node.items:
                    how = self._raises(item.item, context=True)
                    if how:
                        out.append(Expecting(node.body, item, f"`with {how}`"))
                        break
            elif isinstance(node, cst.Call):
                how = self._raises(node, context=False)
                positional = [a for a in node.args if a.keyword is None and not a.star]
                if how and len(positional) > _callee_index(how):
                    out.append(Expecting(node, node, f"`{how}`"))
            elif isinstance(node, (cst.Try, cst.TryStar)):
                handler = next((h for h in node.handlers if self._observes(h)), None)
                if handler is not None:
                    out.append(Expecting(node.body, handler, self._handler_how(handler)))
            elif isinstance(node, cst.FunctionDef):
                mark = next((d for d in node.decorators if self._xfail(d.decorator)), None)
                if mark is not None:
                    out.append(Expecting(node.body, mark, f"the test is marked `{_spelling(mark.decorator)}`"))
            stack.extend(reversed(list(children(node))))
        return out

    def callees(self, node: cst.CSTNode) -> list[cst.BaseExpression]:
        """What code in `node` calls or hands to a call: each call's callee and its arguments (a function
        handed to `assertRaises`, `lax.map` or `partial` is called through it)."""
        out: list[cst.BaseExpression] = []
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Call):
                out.append(current.func)
                out += [a.value for a in current.args if isinstance(a.value, (cst.Name, cst.Attribute, cst.Lambda, cst.Call))]
            stack.extend(children(current))
        return out

    def _raises(self, expr: cst.BaseExpression, context: bool) -> str:
        """How `expr` says the code it guards is meant to fail (its spelling), or ""."""
        if not isinstance(expr, cst.Call):
            return ""
        func = expr.func
        last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if isinstance(func, cst.Attribute) and (last in _ASSERT_RAISES or last.startswith(_ASSERT_PREFIXES)):
            return _spelling(func)  # self.assertRaises / case.assertRaisesRegex / np.testing.assert_raises
        if last not in _RAISES_LAST and not (context and last == "catch_warnings"):
            return ""  # (resolved only when spelled like one: most calls are not)
        names = self._qualified(func)
        if names & _RAISES:
            return _spelling(func)
        if context and "warnings.catch_warnings" in names and any(
                a.keyword is not None and a.keyword.value == "record" and not _false(a.value) for a in expr.args):
            return _spelling(func) + "(record=True)"
        return ""

    def _xfail(self, decorator: cst.BaseExpression) -> bool:
        target = decorator.func if isinstance(decorator, cst.Call) else decorator
        if isinstance(target, cst.Attribute) and target.attr.value in ("xfail", "expectedFailure"):
            return True
        return bool(self._qualified(target) & _XFAIL)

    def _qualified(self, func: cst.BaseExpression) -> set[str]:
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return set()
        try:
            return self.resolver.qualified_names(func)
        except Exception:  # noqa: BLE001 - a node the scope analysis does not know
            return set()

    def _observes(self, handler: cst.ExceptHandler) -> bool:
        """The handler observes the error rather than letting it go on: it does not end by raising, and
        it reads the error it binds, or (in test code) it is there at all: a flag, an assertion, a `pass`."""
        body = handler.body.body
        last = body[-1] if body else None
        if isinstance(last, cst.SimpleStatementLine) and any(
                isinstance(s, cst.Raise) or isinstance(s, cst.Expr) and _fails(s.value) for s in last.body):
            return False  # the error goes on, or fails the test: it is not wanted
        if self.in_test(handler):
            return True
        name = handler.name.name if handler.name is not None else None
        return isinstance(name, cst.Name) and _reads(handler.body, name.value)

    def _handler_how(self, handler: cst.ExceptHandler) -> str:
        name = handler.name.name if handler.name is not None else None
        if isinstance(name, cst.Name) and _reads(handler.body, name.value):
            return f"an `except` that reads the error (`{name.value}`)"
        return "an `except` that handles the failure in a test"

    def _error_cells(self) -> list[Expecting]:
        """The statements of a notebook's cells that were run to show an error (their stored outputs)."""
        if not self.error_cells:
            return []
        module = self.resolver.wrapper.module
        by_cell: dict[int, list[cst.CSTNode]] = {}
        cell = _marked_cell(module.header, None)
        for statement in module.body:
            cell = _marked_cell(statement.leading_lines, cell)
            if cell in self.error_cells:
                by_cell.setdefault(cell, []).append(statement)
        # (the anchor: the cell's last statement, the one a notebook shows the error under)
        return [Expecting(statement, statements[-1], f"cell {cell} shows an error in its stored output")
                for cell, statements in by_cell.items() for statement in statements]

    # -- tests that read structure --------------------------------------------------------------
    def structure_read(self, node: cst.CSTNode, words: tuple[str, ...] = ()) -> Read | None:
        """The first read of the program's structure in the test code around `node` (see the module
        docstring), or None. `words` name what the fix changes, as a test's name would say it."""
        test, scope = self._scope(node)
        if test is not None and words:
            tokens = _tokens(test.name.value)
            named = next((w for w in words if w in tokens), None)
            if named is not None:
                return Read(test.name, f"its name says it tests `{named}` (`{test.name.value}`)")
        for part in scope:
            depth = int(part is not scope[0])  # a function the test calls (or hands to jit) is traced or called from it
            read = self._reads.get((id(part), depth))
            if read is None:
                read = self._reads[(id(part), depth)] = _first_read(part, depth) or False
            if read:
                return read if test is not None else replace(read, test=False)
        return None

    @cached_property
    def _reads(self) -> dict[tuple[int, int], Read | bool]:
        return {}

    def _scope(self, node: cst.CSTNode) -> tuple[cst.FunctionDef | None, list[cst.CSTNode]]:
        """The test function around `node` and what it runs of this module; else (None, [the module])."""
        outer = None
        current = node
        while current is not None:
            if isinstance(current, cst.FunctionDef):
                outer = current
            current = self.resolver.parent(current)
        if outer is None or not outer.name.value.startswith("test"):
            return None, [self.resolver.wrapper.module]
        scope: list[cst.CSTNode] = [outer]
        seen = {id(outer)}
        work = [outer]
        while work and len(scope) < 50:
            for callee in self.callees(work.pop()):
                for fn in self._local_defs(callee):
                    if id(fn) not in seen:
                        seen.add(id(fn))
                        scope.append(fn)
                        work.append(fn)
        return outer, scope

    def _local_defs(self, callee: cst.BaseExpression) -> list[cst.FunctionDef]:
        """The module's defs a callee may be: a function of that name, or a method (`self.check(...)`)."""
        if isinstance(callee, cst.Name):
            return self.defs_named.get(callee.value, [])
        if isinstance(callee, cst.Attribute):
            return self.methods_named.get(callee.attr.value, [])
        return []

    @cached_property
    def defs_named(self) -> dict[str, list[cst.FunctionDef]]:
        """The module's module-level defs by name."""
        out: dict[str, list[cst.FunctionDef]] = {}
        for statement in self.resolver.wrapper.module.body:
            if isinstance(statement, cst.FunctionDef):
                out.setdefault(statement.name.value, []).append(statement)
        return out

    @cached_property
    def methods_named(self) -> dict[str, list[cst.FunctionDef]]:
        """The defs directly in a class body of the module, by name."""
        out: dict[str, list[cst.FunctionDef]] = {}
        stack: list[cst.CSTNode] = [self.resolver.wrapper.module]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.ClassDef) and isinstance(node.body, cst.IndentedBlock):
                for statement in node.body.body:
                    if isinstance(statement, cst.FunctionDef):
                        out.setdefault(statement.name.value, []).append(statement)
            if isinstance(node, (cst.Module, cst.ClassDef, cst.IndentedBlock, cst.If, cst.Try, cst.With)):
                stack.extend(children(node))
        return out


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


def _first_read(scope: cst.CSTNode, depth: int = 0) -> Read | None:
    """The first read of structure in `scope` (a function or the module), in source order; `depth`: 1 when
    the scope is itself a function the test runs (its side effects count what runs it)."""
    stack: list[tuple[cst.CSTNode, int]] = [(scope, depth)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (cst.Import, cst.ImportFrom)) or _docstring(node):
            continue  # importing `inspect` reads nothing yet; a docstring is read by people
        what = _read_at(node, depth)
        if what:
            return Read(node, what)
        inner = depth + (node is not scope and isinstance(node, _FUNCTIONS))
        named = node.name if isinstance(node, (cst.FunctionDef, cst.ClassDef)) else None  # a def's name reads nothing
        stack.extend((c, inner) for c in reversed(list(children(node))) if c is not named)
    return None


def _read_at(node: cst.CSTNode, depth: int) -> str:
    """What `node` reads of the structure ("" : nothing); `depth`: the functions it is nested in, below the scope."""
    if isinstance(node, (cst.Name, cst.Attribute)):
        name = node.value if isinstance(node, cst.Name) else node.attr.value
        if name in _OF_OBJECTS and isinstance(node, cst.Name):
            return ""  # the module's `__name__` (`if __name__ == "__main__":`), not a function's
        if name in _READ_NAMES:
            return _READ_NAMES[name]
        lowered = name.lower()
        if any(part in lowered for part in _READ_PARTS):
            return f"the staged program (`{name}`)"
        if lowered.startswith("count_") and any(part in lowered for part in _COUNT_PARTS):
            return f"a count of traces or compiles (`{name}`)"
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        method = node.func.attr.value
        if method == "lower" and node.args:
            return "the lowered program (`.lower(...)`)"
        if method == "compile" and not node.args:
            return "the compiled program (`.compile()`)"
        if depth and method in _RECORDS:
            return f"a record kept by a side effect (`.{method}(...)`)"
    elif isinstance(node, (cst.SimpleString, cst.FormattedStringText)):
        text = node.value
        if _JIT_TEXT.search(text):
            return f"a jit's name in the staged program ({_short(text)})"
    elif depth and isinstance(node, (cst.Nonlocal, cst.Global)):
        return f"a count kept by a side effect (`{'nonlocal' if isinstance(node, cst.Nonlocal) else 'global'}`)"
    elif depth and isinstance(node, cst.AugAssign) and isinstance(node.target, (cst.Subscript, cst.Attribute)):
        return "a count kept by a side effect (`+=` on a container)"
    return ""


# -- helpers -------------------------------------------------------------------------------------------
def _tokens(name: str) -> set[str]:
    """The words of an identifier: `test_vmapOfJit` -> {test, vmap, of, jit}."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return {w.lower() for w in spaced.split("_") if w}


def _docstring(node: cst.CSTNode) -> bool:
    """A string standing as a statement of its own."""
    return isinstance(node, cst.Expr) and isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString))


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _spelling(expr: cst.BaseExpression) -> str:
    parts = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if isinstance(expr, cst.Name):
        parts.append(expr.value)
    elif isinstance(expr, cst.Call):
        return _spelling(expr.func)
    return ".".join(reversed(parts)) or "..."


def _callee_index(how: str) -> int:
    """Where the call form of an expecting call takes the function it calls: after the error, and after
    the pattern for the `Regex` and `Match` forms (`assertRaisesRegex(E, "msg", f, x)`)."""
    return 2 if how.lower().endswith(("regex", "regexp", "match")) else 1


def _fails(expr: cst.BaseExpression) -> bool:
    """`self.fail(...)` / `pytest.fail(...)`: the handler makes the error a failure of the test."""
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "fail"


def _false(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value in ("False", "None")


def _reads(node: cst.CSTNode, name: str) -> bool:
    """Some Name in `node` is spelled `name` (conservative: a shadowing def still counts)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name) and current.value == name:
            return True
        stack.extend(children(current))
    return False


def _marked_cell(lines, cell: int | None) -> int | None:
    """The cell after `lines` (a statement's leading lines): the last notebook cell marker among them, else `cell`."""
    for line in lines:
        if line.comment is not None:
            index = cell_of_marker(line.comment.value)
            if index is not None:
                cell = index
    return cell
