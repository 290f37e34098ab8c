"""Shared program analysis. Codemods ask these questions; they never re-implement them.

Everything is computed lazily and at most once per file: a file none of whose nodes could name a
relevant API never pays for scope resolution.
"""
from __future__ import annotations

from functools import cached_property

import libcst as cst

from .bindings import ModuleGlobals
from .jit import JitAnalysis
from .names import NameResolver
from .reachability import Reachability
from .traced import TracedAnalysis


class ModuleAnalysis:
    def __init__(self, wrapper: cst.MetadataWrapper) -> None:
        self.wrapper = wrapper
        self.names = NameResolver(wrapper)
        self._reserved: set[str] = set()  # names handed out by fresh_name during this pass

    @cached_property
    def jit(self) -> JitAnalysis:
        return JitAnalysis(self.names)

    @cached_property
    def traced(self) -> TracedAnalysis:
        return TracedAnalysis(self.names, self.jit)

    @cached_property
    def reachability(self) -> Reachability:
        return Reachability(self.names)

    @cached_property
    def globals(self) -> ModuleGlobals:
        return ModuleGlobals(self.names)

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """Every identifier spelled in the module: new names must avoid all of them."""
        out = set()
        stack = [self.wrapper.module]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name):
                out.add(node.value)
            stack.extend(node.children)
        return frozenset(out)

    def fresh_name(self, base: str, taken: set[str] | None = None) -> str:
        """`base`, or `base_2`, `base_3`... : a name used nowhere in the module (nor in `taken`)."""
        taken = set(taken or ()) | self.identifiers | self._reserved
        name, i = base, 2
        while name in taken:
            name, i = f"{base}_{i}", i + 1
        self._reserved.add(name)
        return name
