"""The analysis of one module, as the codemods ask it: each part computed lazily, at most once per
file: a file none of whose nodes could name a relevant API never pays for scope resolution."""
from __future__ import annotations

from functools import cached_property

import libcst as cst

from ..cst_tree import children
from .aliases import NO_ALIASES
from .apis import Kind
from .bindings import ModuleGlobals
from .jit import JitAnalysis, assigned_value
from .testcode import TestCode, collectable
from .transforms import match_application
from .names import NameResolver
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

    def release(self) -> None:
        """The pass over the file is over: let its trees go without the garbage collector (NameResolver.release)."""
        self.names.release()

    @cached_property
    def jit(self) -> JitAnalysis:
        return JitAnalysis(self.names, self.project, self.world.open_module if self.world is not None else "")

    @cached_property
    def traced(self) -> TracedAnalysis:
        return TracedAnalysis(self.names, self.jit, self.callsite_facts, self.project,
                              open_module=self.world.open_module if self.world is not None else "")

    @cached_property
    def reachability(self) -> Reachability:
        return Reachability(self.names, self.world.targets if self.world is not None else None)

    @cached_property
    def globals(self) -> ModuleGlobals:
        return ModuleGlobals(self.names)

    @cached_property
    def testcode(self) -> TestCode:
        return TestCode(self.names, self.path)

    @cached_property
    def _expected_to_fail(self) -> frozenset[int]:
        """Ids of the jitted functions some call meant to fail reaches (see testcode.py)."""
        out: set[int] = set()
        for callee in self.testcode.expected_failures:
            if not isinstance(callee, cst.Name):
                continue
            out |= {id(fn) for fn in self.jit.functions_denoted(callee)}
            for binding in self.names.reaching(callee):
                value = assigned_value(self.names, getattr(binding, "node", None))
                application = match_application(self.names, value, (Kind.JIT,)) if isinstance(value, cst.Call) else None
                if application is not None:
                    out |= {id(fn) for fn in self.jit.functions_denoted(application.function)}
        return frozenset(out)

    def expected_to_fail(self, fn: cst.CSTNode) -> bool:
        """A test calls the jitted function `fn` expecting it to fail: rules that would make it work leave it alone."""
        return bool(self._expected_to_fail) and id(fn) in self._expected_to_fail

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
