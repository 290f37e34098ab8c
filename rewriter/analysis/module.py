"""The analysis of one module, as the codemods ask it: each part computed lazily, at most once per
file: a file none of whose nodes could name a relevant API never pays for scope resolution."""
from __future__ import annotations

from collections import deque
from functools import cached_property

import libcst as cst

from ..cst_tree import children
from .aliases import NO_ALIASES
from .bindings import ModuleGlobals
from .jit import JitAnalysis, assigned_value
from .testcode import Expecting, TestCode, collectable
from .names import NameResolver
from . import ast_resolver
from .reachability import Reachability
from .traced import TracedAnalysis


class ModuleAnalysis:
    def __init__(self, wrapper: cst.MetadataWrapper, path: str = "", callsite_facts: dict | None = None,
                 project=None, world=None) -> None:
        self.wrapper = wrapper
        self.path = path
        self.callsite_facts = callsite_facts or {}
        self.project = project  # what the rest of the project tells this file (rewriter/analysis/facts.py)
        self.world = world  # the user's world beyond the file (rewriter/project/world.py), or None
        self.names = NameResolver(wrapper, getattr(world, "package", ""),
                                  project.alias_map() if hasattr(project, "alias_map") else NO_ALIASES,
                                  frozenset(getattr(project, "classes", ())))
        if world is not None:
            self.names.own_copies = world.targets.own_copies()
        self._reserved: set[str] = set()  # names handed out by fresh_name during this pass
        self.error_cells: frozenset[int] = frozenset()  # a notebook's cells whose stored outputs hold an error

    def release(self) -> None:
        """The pass over the file is over: let its trees go without the garbage collector (NameResolver.release)."""
        self.names.release()
        if "reachability" in self.__dict__:
            self.reachability.release()

    @cached_property
    def jit(self) -> JitAnalysis:
        return JitAnalysis(self.names, self.project, self.world.open_module if self.world is not None else "")

    @cached_property
    def traced(self) -> TracedAnalysis:
        return TracedAnalysis(self.names, self.jit, self.callsite_facts, self.project,
                              open_module=self.world.open_module if self.world is not None else "")

    @cached_property
    def reachability(self) -> Reachability:
        """Read from CPython's parse of the module's code (the bytes it was parsed from, when at hand)."""
        names = self.names
        module = self.wrapper.module
        code = names.source.decode(module.encoding, errors="replace") if names.source is not None else module.code

        def resolver(tree):
            return ast_resolver.NameResolver(tree, names.package, names.aliases, names.own_copies)
        return Reachability(code, resolver, self.world.targets if self.world is not None else None)

    @cached_property
    def globals(self) -> ModuleGlobals:
        return ModuleGlobals(self.names)

    @cached_property
    def testcode(self) -> TestCode:
        return TestCode(self.names, self.path, self.error_cells)

    # -- code meant to fail (testcode.py): the places that say so, and the functions they reach --------
    @cached_property
    def _expected_to_fail(self) -> dict[int, Expecting]:
        """id of each place meant to fail (a region of testcode.Expecting) and of each function the calls
        made there reach, in this module and through calls made in those functions -> the Expecting."""
        out: dict[int, Expecting] = {}
        work: deque[tuple[cst.CSTNode, Expecting]] = deque()
        for expecting in reversed(self.testcode.expecting):  # the innermost first: it names a function's reason
            out.setdefault(id(expecting.region), expecting)
            work += [(callee, expecting) for callee in self.testcode.callees(expecting.region)]
        seen: set[int] = set()
        while work:
            callee, expecting = work.popleft()
            for fn in self._functions_called(callee, seen):
                if id(fn) not in out:
                    out[id(fn)] = expecting
                    work += [(inner, expecting) for inner in self.testcode.callees(fn)]
        return out

    def _functions_called(self, expr: cst.CSTNode, seen: set[int]) -> list[cst.CSTNode]:
        """The module's functions a call of `expr` (or a call through it) may run: a lambda, the defs a
        name denotes or the values it is bound to (`g = jax.jit(f)`), the function a transform or
        `partial` is applied to (`jax.jit(f)(x)`), a factory's def, a method of that name (`self.f(x)`)."""
        if id(expr) in seen:
            return []
        seen.add(id(expr))
        if isinstance(expr, cst.Lambda):
            return [expr]
        if isinstance(expr, cst.Call):
            out = self._functions_called(expr.func, seen)
            for arg in expr.args:
                out += self._functions_called(arg.value, seen)
            return out
        if isinstance(expr, cst.Attribute):
            out = list(self.testcode.methods_named.get(expr.attr.value, ()))
            for value in self._attribute_values.get(expr.attr.value, ()):
                out += self._functions_called(value, seen)
            return out
        if not isinstance(expr, cst.Name):
            return []
        out = list(self.jit.functions_denoted(expr))
        if out:
            return out
        try:
            bindings = self.names.reaching(expr)
        except Exception:  # noqa: BLE001 - a name the scope analysis does not know
            return []
        for binding in bindings:
            node = getattr(binding, "node", None)
            if isinstance(node, cst.FunctionDef):
                out.append(node)
                continue
            value = assigned_value(self.names, node)
            if value is not None:
                out += self._functions_called(value, seen)
        return out

    @cached_property
    def _attribute_values(self) -> dict[str, list[cst.BaseExpression]]:
        """Values assigned to an attribute anywhere in the module, by its name (`self.f = jax.jit(g)`)."""
        out: dict[str, list[cst.BaseExpression]] = {}
        stack: list[cst.CSTNode] = [self.wrapper.module]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    if isinstance(target.target, cst.Attribute):
                        out.setdefault(target.target.attr.value, []).append(node.value)
            stack.extend(children(node))
        return out

    def expected_failure(self, node: cst.CSTNode) -> Expecting | None:
        """What says `node` is meant to fail: it is in a place that expects an error, or in a function a
        call made there reaches (see testcode.py). None for the usual code."""
        expected = self._expected_to_fail
        if not expected:
            return None
        current = node
        while current is not None:
            found = expected.get(id(current))
            if found is not None:
                return found
            current = self.names.parent(current)
        return None

    def expected_to_fail(self, fn: cst.CSTNode) -> bool:
        """A call meant to fail reaches the function `fn` (or `fn` is in a place meant to fail)."""
        return self.expected_failure(fn) is not None

    def imported_factory(self, func: cst.BaseExpression):
        """The project's fact (RemoteFactory) about the function a callee names, when it is a name
        imported from another module (and bound nothing else here) whose function builds a new
        function on every call; None otherwise."""
        if not self.project or not isinstance(func, cst.Name):
            return None
        found = self.project.factory(func.value)
        if found is None:
            return None
        assignments = self.names.assignments(func)
        if len(assignments) != 1 or type(next(iter(assignments))).__name__ != "ImportAssignment":
            return None  # a local of the same name, or rebound: not the imported factory
        return found

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """Every identifier spelled in the module: new names must avoid all of them."""
        if self.names.spelled is not None:
            return frozenset(self.names.spelled)  # gathered by the shared traversal
        out = set()
        stack = [self.wrapper.module]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name):
                out.add(node.value)
            stack.extend(children(node))
        return frozenset(out)

    def fresh_name(self, base: str, taken: set[str] | None = None) -> str:
        """`base`, or `base_2`, `base_3`... : a name used nowhere in the module (nor in `taken`)."""
        taken = set(taken or ()) | self.identifiers | self._reserved
        if collectable(base):  # `test_square_lambda_jit` at module level would be collected as a test
            base = "_" + base
        name, i = base, 2
        while name in taken:
            name, i = f"{base}_{i}", i + 1
        self._reserved.add(name)
        return name
