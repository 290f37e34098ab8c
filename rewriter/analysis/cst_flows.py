"""The traced values, read on CPython's `ast` (ast_flow.py), as the rules on libcst ask them.

The rules still walk libcst trees: they ask for the value at a condition they hold, the flow of the
function around a node, the roles of a jitted function's parameters. This answers with ast_flow's
reading, each node moved between the trees: the functions, contexts, recorded conditions and calls of
helpers to libcst's, paired in the order both trees hold them (found by place where they do not pair),
the nodes asked about to `ast`'s by where they are (locator.py). The values
themselves are `ast`'s: a derivation's steps hold `ast` nodes (a finding places them with the locator),
and a value's sources name functions by the ids of their `ast` defs (`key`). Issue 45 moves the rules
to `ast`, and this goes with the last of them.

A file this Python cannot parse (PEP 695/701 syntax on 3.11) is read lowered (lowering.py); one that
cannot be lowered either has no flows, and the roles of its jitted functions' parameters come from their
declarations alone.
"""
from __future__ import annotations

import ast
from functools import cached_property

import libcst as cst

from .annotations import annotation_of
from .callsites import CallEvidence, CallSites, ParamEvidence, ParamRole, arguments, param_role
from .jit import JitAnalysis
from .jit_contexts import JitContext
from .locator import Locator, ast_in_order, cst_in_order
from .names import NameResolver
from .structure import all_params
from .trace_values import FunctionFlow, Trace, Value

_UNANALYSED = Value(Trace.UNKNOWN, ("not inside an analysed traced function",))


class TracedFlows:
    """Flows of every traced function in a module (ast_flow.TracedAnalysis), keyed and placed on libcst."""

    def __init__(self, reading, jit: JitAnalysis, locator: Locator | None, resolver: NameResolver,
                 project=None, open_module: str = "") -> None:
        self.reading = reading  # ast_flow.TracedAnalysis, or None where CPython cannot read the file
        self.jit = jit
        self.locator = locator
        self.resolver = resolver
        self.project = project  # FileFacts from the project index, or None
        self.open_module = open_module  # why the module's public functions may have callers not in the run
        self.flows: dict[int, FunctionFlow] = {}  # id of the libcst def or lambda -> its flow
        self._contexts: dict[int, JitContext] = {}  # id of an `ast` context -> its libcst context
        self._ast_contexts: dict[int, JitContext] = {}  # id of a libcst context -> its `ast` context
        self._keys: dict[int, int] = {}  # id of a libcst function -> id of its `ast` twin
        self._anchors: dict[int, ast.AST] = {}  # id of a recorded libcst condition -> its `ast` twin
        if reading is not None and locator is not None:
            self._pair_contexts()
            for flow in reading.flows.values():
                self._translate(flow)

    # -- what the rules ask ------------------------------------------------------------------------
    def value_at(self, anchor: cst.CSTNode, expr: cst.CSTNode) -> Value:
        """The value of `expr` evaluated where the recorded condition or iterable `anchor` is evaluated."""
        at = self._anchors.get(id(anchor))
        node = self.locator.ast_of(expr) if at is not None and self.locator is not None else None
        if node is None:
            return _UNANALYSED
        return self.reading.value_at(at, node)

    def value_anywhere(self, expr: cst.CSTNode) -> Value | None:
        """The value of `expr` in the traced function whose body holds it, each local name the join of all
        its bindings; None outside an analysed function."""
        flow = self.flow_containing(expr)
        if flow is None:
            return None
        node = self.locator.ast_of(expr) if self.locator is not None else None
        function = self._ast_contexts[id(flow.context)].function
        return self.reading.value_anywhere(node, function) if node is not None else None

    def flow_containing(self, node: cst.CSTNode) -> FunctionFlow | None:
        """The flow of the traced function whose own body (not a nested def's) holds `node`."""
        current = self.resolver.parent(node)
        while current is not None:
            if isinstance(current, (cst.FunctionDef, cst.Lambda)):
                return self.flows.get(id(current))
            current = self.resolver.parent(current)
        return None

    def key(self, fn: cst.CSTNode) -> int | None:
        """How a value's sources name the jitted function `fn` (the id of its `ast` def)."""
        return self._keys.get(id(fn))

    def is_config(self, source: tuple[int, str]) -> bool:
        """The traced parameter `source` (a value's source) is configuration: its condition is PML204's to fix."""
        return self.reading is not None and self.reading.is_config(source)

    def roles(self, context: JitContext) -> dict[str, ParamRole]:
        """What each parameter of a directly jitted function is: static, configuration, data (callsites.py)."""
        twin = self._ast_contexts.get(id(context))
        if twin is not None:
            return self.reading.roles(twin)
        return self._declared_roles(context)

    def evidence(self, context: JitContext) -> CallEvidence | None:
        """What the calls of `context`'s jitted callable pass (callsites.CallEvidence); None where it cannot be read."""
        twin = self._ast_contexts.get(id(context))
        callsites = self.callsites
        if twin is None or callsites is None:
            return None
        return callsites.of(twin.function, twin.how, twin.application)

    @cached_property
    def callsites(self) -> CallSites | None:
        return self.reading.callsites if self.reading is not None else None

    def facts_found(self) -> tuple:
        """The roles found for the directly jitted functions, as `Settings.callsite_facts` takes them."""
        return self.reading.facts_found() if self.reading is not None else ()

    # -- between the trees -------------------------------------------------------------------------
    def _pair_contexts(self) -> None:
        """Each context the `ast` reading found with libcst's of the same function (both readings list them
        in the same order: jit_contexts.JitContexts)."""
        cst_contexts = self.jit.contexts
        ast_contexts = self.reading.jit.contexts
        assert self.locator is not None
        for theirs, ours in zip(ast_contexts, cst_contexts):
            if ours.how == theirs.how and self.locator.cst_of(theirs.function) is ours.function:
                self._pair(theirs, ours)

    def _pair(self, theirs: JitContext, ours: JitContext) -> None:
        self._contexts[id(theirs)] = ours
        self._ast_contexts[id(ours)] = theirs
        self._keys.setdefault(id(ours.function), id(theirs.function))

    def _context(self, theirs: JitContext) -> JitContext | None:
        """libcst's context for an `ast` one: paired, or a helper's, made as traced code calls it."""
        found = self._contexts.get(id(theirs))
        if found is not None or theirs.caller is None:
            return found
        caller = self._context(theirs.caller)
        assert self.locator is not None  # (contexts are paired only where there is a reading)
        function = self.locator.cst_of(theirs.function)
        if caller is None or function is None:
            return None
        ours = JitContext(function, caller.transform, theirs.how, theirs.static_params, caller, remote=theirs.remote)
        self._pair(theirs, ours)
        return ours

    def _translate(self, flow: FunctionFlow) -> None:
        context = self._context(flow.context)
        if context is None:
            return
        ours = FunctionFlow(context, flow.framework, flow.params, config=flow.config, bound=flow.bound)
        assert self.locator is not None
        twins = _Twins(flow.context.function, context.function, self.locator)
        for key, value in flow.tests.items():
            node = twins.nodes.get(key)
            anchor = twins.of(node) if node is not None else None
            if anchor is not None and node is not None:
                ours.tests[id(anchor)] = value
                ours.envs[id(anchor)] = flow.envs[key]
                self._anchors[id(anchor)] = node
        for name, call, values in flow.calls:
            callee, site = twins.of(name), twins.of(call)
            if callee is not None and site is not None:
                ours.calls.append((callee, site, values))
        for expr, api in flow.bodies:
            body = twins.argument(expr, self.reading.resolver.parent(expr))
            if body is not None:
                ours.bodies.append((body, api))
        self.flows[id(context.function)] = ours

    def _declared_roles(self, context: JitContext) -> dict[str, ParamRole]:
        """The roles of a jitted function's parameters from their declarations alone (CPython cannot read
        the file: no call is read, and none of them is proven)."""
        fn = context.function
        params = [p for p in all_params(fn) if p is not fn.params.star_kwarg and p is not fn.params.star_arg]
        unread = CallEvidence([], {p.name.value: ParamEvidence(p.name.value) for p in params}, complete=True)
        unread.escape("its calls are not read: this Python cannot parse the file")
        return {p.name.value: param_role(p.name.value, self._expression(p.annotation.annotation if p.annotation else None),
                                         self._expression(p.default), context.static_params, unread) for p in params}

    def _expression(self, node: cst.BaseExpression | None) -> ast.expr | None:
        """`node` as CPython reads it on its own (None: absent, or not readable either)."""
        return annotation_of(self.resolver.wrapper.module.code_for_node(node)) if node is not None else None


# The nodes a flow records (a condition's or a loop's holder, a call), each `ast` class with libcst's.
_HOLDERS: dict[type, type] = {ast.If: cst.If, ast.While: cst.While, ast.For: cst.For, ast.AsyncFor: cst.For,
                              ast.IfExp: cst.IfExp, ast.Call: cst.Call}


class _Twins:
    """The libcst twins of what one function's flow records, paired in the order both trees hold them: the
    conditions and iterables of its `if`s, loops and conditional expressions, and its calls (a call also by
    its callee's name), with no position computed (finding each by its place would generate the code of
    the statements around it). What does not pair is found by place (`Locator.cst_of`)."""

    def __init__(self, theirs: ast.AST, ours: cst.CSTNode, locator: Locator) -> None:
        self.locator = locator
        walked = list(ast.walk(theirs))
        self.nodes = {id(node): node for node in walked}  # (a flow keys what it records by these ids)
        found = cst_in_order(ours, tuple(set(_HOLDERS.values())))
        self.twins: dict[int, cst.CSTNode] = {}
        for kind, nodes in ast_in_order(walked, _HOLDERS).items():
            if len(nodes) != len(found[kind]) or kind is cst.Call and any(
                    _callee(a.func) != _callee(b.func) for a, b in zip(nodes, found[kind])):
                continue  # (found by place instead)
            for a, b in zip(nodes, found[kind]):
                if kind is cst.Call:
                    self.twins[id(a)], self.twins[id(a.func)] = b, b.func
                elif kind is cst.For:
                    self.twins[id(a.iter)] = b.iter
                else:
                    self.twins[id(a.test)] = b.test

    def of(self, node: ast.AST) -> cst.CSTNode | None:
        paired = self.twins.get(id(node))
        return paired if paired is not None else self.locator.cst_of(node)

    def argument(self, expr: ast.AST, parent: ast.AST | None) -> cst.CSTNode | None:
        """An argument of a call (a function handed to a primitive): the same argument of the call's twin."""
        if isinstance(expr, (ast.Lambda, ast.FunctionDef)):
            return self.locator.cst_of(expr)
        call = self.locator.python.names.parent(parent) if isinstance(parent, ast.keyword) else parent
        site = self.twins.get(id(call)) if isinstance(call, ast.Call) else None
        if isinstance(site, cst.Call) and isinstance(call, ast.Call):
            index = next((i for i, (_, value, _) in enumerate(arguments(call)) if value is expr), None)
            if index is not None and index < len(site.args):
                return site.args[index].value
        return self.locator.cst_of(expr)


def _callee(func) -> str | None:
    """The last name of a callee, on either tree (what a call is checked against its twin by)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None
