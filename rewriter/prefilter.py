"""Second pre-filter stage: CPython's `ast` (C speed, an order of magnitude cheaper than a libcst parse).

A file reaches libcst only for the rules whose gates it passes. Each rule's gate is in its own file
(`Rule.ast_gate`), a necessary condition for its findings read off what one walk of the file's ast
finds (`SyntaxFacts`: applications of the table's APIs spelled through the file's own imports, and
where they are) and its identifiers. A test checks that every golden case and example with findings
passes the gates of the rules that report there. A gate never decides a finding: the rule does.
"""
from __future__ import annotations

import ast
from ast import (Assign, AsyncFunctionDef, Attribute, Call, Constant, For, FunctionDef, Import, ImportFrom, Lambda, Module, Name,
                 Subscript, While)
import contextlib
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

from .analysis.aliases import NO_ALIASES, Aliases
from .analysis.ast_resolver import imports_of
from .analysis.apis import Kind, may_spell_an_api, reaching_roots, spelled_apis
from .analysis import ast_traced, compilers
from .analysis.ast_names import LOOPS, Met, branches, dotted, parse, words_text
from .analysis.static_names import STORING
from .rule import Rule


class _Spelling:
    def __init__(self, tree: Module, package: str = "", aliases: Aliases = NO_ALIASES) -> None:
        # The package relative imports start from, and the project's re-exports (analysis/aliases.py), as
        # the libcst analysis reads them (names.NameResolver)
        self.package, self.aliases = package, aliases
        self.imported, self.stars = imports_of(tree, package)

        # Per spelling (one file: few of them): the APIs it may denote, their names, and its last names.
        self._apis: dict[str | None, list] = {None: []}
        self._names: dict[str | None, frozenset[str]] = {None: frozenset()}
        self._last_names: dict[str, frozenset[str]] = {}
        self._texts: dict[int, tuple[ast.AST, str | None]] = {}  # id(node) -> (node, its spelling)
        self._info: dict[str, tuple] = {}  # spelling -> `info`

    def _spelled(self, node: ast.AST) -> str | None:
        """`dotted(node)`, once per node: a callee is asked about several times in one visit."""
        entry = self._texts.get(id(node))
        if entry is not None and entry[0] is node:
            return entry[1]
        text = dotted(node)
        self._texts[id(node)] = (node, text)
        return text

    def apis(self, node: ast.AST) -> list:
        text = self._spelled(node)
        try:
            return self._apis[text]
        except KeyError:
            found = self._apis[text] = spelled_apis(text, self.imported, self.stars, self.aliases)
            return found

    def names(self, node: ast.AST) -> frozenset[str]:
        text = self._spelled(node)
        try:
            return self._names[text]
        except KeyError:
            found = self._names[text] = frozenset(a.name for a in self.apis(node))
            return found

    def last_names(self, node: ast.AST) -> frozenset[str]:
        """The name a callee is known by (`gradient` for `math.gradient`), and that of every API it may
        denote through a re-export under another name (`gradient` for PhiFlow's `functional_gradient`)."""
        text = self._spelled(node)
        if text is not None and text in self._last_names:
            return self._last_names[text]
        own = node.id if isinstance(node, Name) else node.attr if isinstance(node, Attribute) else None
        found = frozenset({*([own] if own else []), *(a.name.rsplit(".", 1)[-1] for a in self.apis(node))})
        if text is not None:
            self._last_names[text] = found
        return found

    def kind(self, node: ast.AST) -> Kind | None:
        apis = self.apis(node)
        return apis[0].kind if apis else None

    def info(self, node: ast.AST) -> tuple[list, frozenset[str], frozenset[str], Kind | None]:
        """(`apis`, `names`, `last_names`, `kind`) of a callee at once, once per spelling: every call
        asks all four (the pre-filter's walk spent a third of its time asking them one by one)."""
        text = self._spelled(node)
        found = self._info.get(text) if text is not None else None
        if found is None:
            apis = self.apis(node)
            found = (apis, self.names(node), self.last_names(node), apis[0].kind if apis else None)
            if text is not None:
                self._info[text] = found
        return found

    def transform(self, node: ast.AST) -> Kind | None:
        """Kind of a bare, factory or partial transform expression."""
        if isinstance(node, (Name, Attribute)):
            return self.kind(node)
        if isinstance(node, Call):
            k = self.kind(node.func)
            if k is Kind.PARTIAL and node.args:
                return self.kind(node.args[0])
            if k is not None and not node.args:
                return k
        return None

    def application(self, call: Call, callee: tuple | None = None) -> Kind | None:
        """Kind of the transform `call` applies to a function (its first positional argument).
        `callee`: `info(call.func)`, when the caller has it."""
        if not call.args:
            return None
        func = call.func
        if type(func) is Name or type(func) is Attribute:
            k = (callee or self.info(func))[3]
        else:
            k = self.transform(func)
        return None if k is Kind.PARTIAL else k


_HANDLERS: dict[type, Callable | None] = {}  # node class -> SyntaxFacts' handler of it (None: none)


class SyntaxFacts(ast.NodeVisitor):
    """What one walk of a file's ast finds that the rules' gates read (pre-order, like libcst): the
    jit, vmap, gradient and solver applications spelled through its imports, with the functions and
    loops around them; control flow, effects and calls per function; and the derived questions several
    gates ask (`traced_functions`, `flows`...). The facts are generic: each rule's own conditions are
    in its file (`Rule.ast_gate`).

    `visit` and `generic_visit` are ast.NodeVisitor's, with the method looked up once per node class
    and the children read from a table of fields (ast_names.branches: no context or operator leaves)
    rather than `iter_fields`."""

    def visit(self, node: ast.AST) -> None:
        cls = type(node)
        if cls is Name:  # a third of the nodes: an identifier, nothing below it
            if self.identifying:
                self.identifiers.names.add(node.id)
            return
        if cls is Constant:
            return
        if cls in self.identifying:  # the identifiers, in the same walk
            self.identifiers.see(node)
        try:
            handler = _HANDLERS[cls]
        except KeyError:
            # only handlers of this class: ast.NodeVisitor's own (`visit_Constant`) do nothing here
            handler = _HANDLERS[cls] = SyntaxFacts.__dict__.get(f"visit_{cls.__name__}")
        if handler is None:
            found = self.kids.get(id(node))
            visit = self.visit  # (once per node, not per child)
            for child in found if found is not None else branches(node):
                visit(child)
        else:
            handler(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        found = self.kids.get(id(node))
        visit = self.visit
        for child in found if found is not None else branches(node):
            visit(child)

    def __init__(self, spelling: _Spelling, project=None, tree: Module | None = None, roles_given: bool = False,
                 kids: dict | None = None, identify: bool = True) -> None:
        self.s = spelling
        self.tree = tree
        self.kids = kids if kids is not None else {}  # id(node) -> its branches, when the survey's summary read them
        self.identifiers = _IdentifierSink(spelling)
        # The kinds of nodes whose identifiers the walk collects; none where the summary's walk met them
        # all already (`identify` False: Syntax.identifiers reads them off ast_names.Met).
        self.identifying = _IDENTIFYING if identify else frozenset()
        # What other modules say (rewriter/analysis/facts.py): defs of this file they trace, and
        # imported names of theirs that build a new jit function per call.
        self.remote_traces = list(project.traces) if project else []
        self.remote_traced = {t.function.rsplit(".", 1)[-1] for t in self.remote_traces}
        self.remote_factories = {f.name for f in project.factories} if project else set()
        # The parameters calls in other modules pass Python values (callsites.CallSites._add_remote), by def name.
        self._remote_python: dict[str, set[str]] = {}
        for call in project.calls if project else ():
            if call.complete:
                self._remote_python.setdefault(call.function.rsplit(".", 1)[-1], set()).update(
                    a.param for a in call.args if a.kind == "python")
        self.asked_remote_python = False  # some gate read `remote_python` (Syntax.reads_call_evidence)
        self.roles_given = roles_given  # the parameters' roles come from elsewhere (engine.Settings.callsite_facts)
        self.functions: list[ast.AST] = []
        self.keys: list = []  # their keys (`_keys`)
        self.loops = 0
        self.jit_defs_in_loops = False  # a jit-decorated def inside a loop
        self.stacked_jits = False  # a def with two jit decorators
        self.vmap_over_jit = False  # vmap over jit, as calls or decorators
        self.jit_decorated: set[str] = set()
        self.jit_bindings: dict[str, list[int | None]] = {}  # name -> the jit call each binding assigns (None: in a loop)
        self.jit_wrapped: set[str] = set()
        self.jit_wrapped_methods: set[str] = set()  # `jax.jit(self.step)`: its transform is not kept
        self.jit_lambdas: set[int] = set()
        self.called: set[int] = set()
        self.assigned: set[int] = set()
        self.wrapped_by: dict[int, int] = {}
        self.jit_calls: list[tuple[Call, tuple, bool]] = []  # (call, enclosing functions, in loop)
        self.nested_jit_defs: list[tuple[ast.AST, tuple]] = []  # jit-decorated nested defs, with the functions around them
        self.maps: list[tuple[Call, tuple]] = []
        self.calls_in_functions: list[Call] = []
        self.custom_gradients: set[str] = set()  # names assigned a custom-gradient function
        self.local_functions: set[str] = set()  # defs and lambdas bound inside functions
        self.custom_gradient_decorated = False
        self.custom_gradient_defs_in_defs: list[ast.AST] = []  # defs a custom-gradient decorator makes per call
        # Per function (by name; lambdas by id): does it contain control flow or dimension calls, and
        # which names does it call? Traced = jit-decorated/wrapped, and what they call.
        self.control_flow: set = set()
        self.calls_by: dict = {}
        self.call_keywords: set[str | None] = set()  # every keyword some call passes
        self.called_in_loops: set[str] = set()  # names called inside a loop or comprehension
        self.effects: set = set()  # functions with a store, attribute/item write, global/nonlocal or print
        self.class_depth = 0
        self.jitted_method_names: set[str] = set()  # jit-decorated defs directly in a class body
        self.methods_called_in_loops: set[str] = set()  # `x.step(...)` inside a loop or comprehension: step
        # `x.attr = ...` (or `+=`, annotated), a target of its own: (x, attr, the keys of the functions around it)
        self.attribute_stores: list[tuple[str, str, tuple]] = []
        self.vmapped = False  # a vmap decorator or application
        self.branches = False  # a `lax.cond`/`lax.switch` call (one under a vmap: cond-under-vmap)
        self.callees_by: dict = {}  # function key -> last names of what it calls (`math.gradient` -> gradient)
        self.callees: set[str] = set()  # ... anywhere in the file
        self.bound_callees: dict[str, set[str]] = {}  # `net = nn.mlp(...)`: net -> last names of the callee
        self.jitted_result_apis: set[str] = set()  # ... and the APIs `math.gradient` may denote
        self.apis_called_by: dict = {}  # function key -> the APIs what it calls may denote (`phiml.math.gradient`)
        self.jit_factories: set[str] = set()  # functions that create a jit function (a nested jit def or a jit call)
        self.assigned_calls: dict[str, set[str]] = {}  # `step = make_step(...)`: step -> {make_step}
        self.all_calls: list[Call] = []
        self.calls_of: dict[str, list[tuple[Call, ast.AST | None]]] = {}  # name -> its calls, each with the function it is in
        self.assigned_names: dict[int, str] = {}  # id of a value assigned to one name -> the name
        self.vmapped_functions: list[ast.AST] = []  # vmap-decorated defs, and what vmap is applied to
        self.branch_calls: set[int] = set()  # `lax.cond`/`lax.switch` calls
        self.vmap_by_keyword = False  # `vmap(fun=f)`: the function is not read here
        # Every def and lambda by its key, and the function it is nested in (through classes): what
        # rewriter/analysis/ast_ast_flow.py reads once the traced functions are known.
        self.nodes_by_key: dict = {}
        self.decorated: list[ast.AST] = []
        self.enclosing: dict[int, ast.AST | None] = {}
        self.nest: list[ast.AST] = []
        self._nests: dict[int, list] = {}
        self._functions: dict[int, ast_traced.Function] = {}
        self._under: dict = {}  # (what, question) -> `traced_under` / `traced_test_under`, asked by several rules
        # The jit transforms applied to each def or lambda: id -> (node, [(apis, keywords)]); and by name,
        # those applied to a def's name (`jax.jit(f, static_argnums=1)`). Keywords None: not readable.
        self.transforms: dict[int, tuple[ast.AST, list]] = {}
        self.applications: list[tuple[str, tuple]] = []

    def visit_ClassDef(self, node) -> None:
        self.class_depth += 1
        saved, self.functions = self.functions, []  # a method is not nested in the enclosing function
        saved_keys, self.keys = self.keys, []
        self.generic_visit(node)
        self.functions, self.keys = saved, saved_keys
        self.class_depth -= 1

    def visit_FunctionDef(self, node) -> None:
        kinds = [self.s.transform(d) for d in node.decorator_list]
        jits = kinds.count(Kind.JIT)
        if jits and self.class_depth and not self.functions:
            self.jitted_method_names.add(node.name)
        if Kind.VMAP in kinds:
            self.vmapped = True
            self.vmapped_functions.append(node)
        if jits:
            self.jit_decorated.add(node.name)
            self.transforms.setdefault(id(node), (node, []))[1].extend(
                self._transform(d) for d, k in zip(node.decorator_list, kinds) if k is Kind.JIT)
            if self.loops:
                self.jit_defs_in_loops = True  # a new jit function every iteration
            if self.functions and isinstance(self.functions[-1], (FunctionDef, AsyncFunctionDef)):
                self.jit_factories.add(self.functions[-1].name)
        if self.functions:
            self.local_functions.add(node.name)
        if jits >= 2:
            self.stacked_jits = True
        elif jits and self.functions:
            self.nested_jit_defs.append((node, tuple(self.functions)))
        if any(a is Kind.VMAP and b is Kind.JIT for a, b in zip(kinds, kinds[1:])):
            self.vmap_over_jit = True
        if Kind.CUSTOM_GRADIENT in kinds:
            self.custom_gradient_decorated = True
            if self.functions and isinstance(self.functions[-1], (FunctionDef, AsyncFunctionDef)):
                self.custom_gradient_defs_in_defs.append(node)
        self.nodes_by_key.setdefault(node.name, []).append(node)
        if node.decorator_list:
            self.decorated.append(node)
        self._enter(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node) -> None:
        self.nodes_by_key[id(node)] = [node]
        self._enter(node)

    def _enter(self, node) -> None:
        self.enclosing[id(node)] = self.nest[-1] if self.nest else None
        self.functions.append(node)
        self.keys.append(node.name if type(node) is not Lambda else id(node))
        self.nest.append(node)
        self.generic_visit(node)
        self.nest.pop()
        self.keys.pop()
        self.functions.pop()

    def _keys(self) -> list:
        """The keys of the enclosing functions (names; lambdas by id), outermost first: the live list."""
        return self.keys

    def visit_If(self, node) -> None:
        self.control_flow.update(self._keys())
        self.generic_visit(node)

    visit_IfExp = visit_If

    def _loop(self, node) -> None:
        if isinstance(node, (For, While)):
            self.control_flow.update(self._keys())
        self.loops += 1
        self.generic_visit(node)
        self.loops -= 1

    visit_For = visit_AsyncFor = visit_While = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _loop

    def _effect(self, targets) -> None:
        if any(isinstance(t, (Attribute, Subscript)) for t in targets):
            self.effects.update(self._keys())
            for target in targets:
                if type(target) is Attribute and type(target.value) is Name:
                    self.attribute_stores.append((target.value.id, target.attr, tuple(self.keys)))

    def visit_AugAssign(self, node) -> None:
        self._effect([node.target])
        self.generic_visit(node)

    visit_AnnAssign = visit_AugAssign

    def visit_Global(self, node) -> None:
        self.effects.update(self._keys())

    visit_Nonlocal = visit_Global

    def visit_Assign(self, node: Assign) -> None:
        targets, value = node.targets, node.value
        self._effect(targets)
        if len(targets) == 1 and type(targets[0]) is Name:
            self.assigned.add(id(value))
            self.assigned_names[id(value)] = targets[0].id
        if type(value) is Call:
            func = value.func
            callee = self.s.info(func)  # what the callee's spelling may denote
            _, names, last_names, kind = callee
            bound = [t.id for t in targets if type(t) is Name]
            if self.functions and "phiml.math.jit_compile_linear" in names:
                self.local_functions.update(bound)
            if kind is Kind.CUSTOM_GRADIENT:
                self.custom_gradients.update(bound)
            if self.s.application(value, callee) is Kind.JIT:
                for name in bound:  # (`f = jax.jit(f)` outside a loop: this binding never reaches its own `f`)
                    self.jit_bindings.setdefault(name, []).append(None if self.loops else id(value))
            if type(func) is Name:
                for name in bound:
                    self.assigned_calls.setdefault(name, set()).add(func.id)
            for name in bound:
                self.bound_callees.setdefault(name, set()).update(last_names)
        elif self.functions and type(value) is Lambda:
            self.local_functions.update(t.id for t in targets if type(t) is Name)
        self.generic_visit(node)

    def visit_Call(self, node: Call) -> None:
        func = node.func
        func_type = type(func)
        spelled = func_type is Name or func_type is Attribute
        keys = self.keys  # the enclosing functions' keys (`_keys`)
        self.all_calls.append(node)
        self.called.add(id(func))
        if func_type is Name:
            name = func.id  # evidence of what a jitted function is passed (`_configurable`)
            self.calls_of.setdefault(name, []).append((node, self.nest[-1] if self.nest else None))
            if self.loops:
                self.called_in_loops.add(name)
            if name == "print":
                self.effects.update(keys)
        elif func_type is Attribute:
            if func.attr in STORING:
                self.effects.update(keys)
            if self.loops and type(func.value) is Name:
                self.methods_called_in_loops.add(func.attr)
        callee = self.s.info(func)  # what the callee's spelling may denote
        _, names, callees, func_kind = callee
        if callees:
            self.callees |= callees
            for key in keys:
                self.callees_by.setdefault(key, set()).update(callees)
        if names:
            for key in keys:
                self.apis_called_by.setdefault(key, set()).update(names)
        for keyword in node.keywords:
            self.call_keywords.add(keyword.arg)
        if self.functions:
            # functions it calls, or hands to a call (`lax.scan(step, ...)`)
            called = {a.id for a in [func, *node.args] if type(a) is Name}
            if func_type is Attribute and type(func.value) is Name and func.value.id == "self":
                called.add(func.attr)  # `self.helper(x)`: a method of the class (jit.method_denoted)
            for key in keys:
                self.calls_by.setdefault(key, set()).update(called)
        if not node.args and node.keywords and spelled and func_kind is Kind.VMAP:
            self.vmap_by_keyword = True
        kind = self.s.application(node, callee)
        if kind is not None:
            self._applied(node, kind)
        if self.functions:
            self.calls_in_functions.append(node)
        self.generic_visit(node)

    def _applied(self, node: Call, kind: Kind) -> None:
        """A call that applies a transform of this kind to its first argument."""
        if kind is Kind.CUSTOM_GRADIENT:
            self.custom_gradient_decorated = True
        if kind in (Kind.JIT, Kind.VMAP, Kind.GRAD):
            self.wrapped_by[id(node.args[0])] = id(node)
        if kind is Kind.JIT:
            first = node.args[0]
            if isinstance(first, Call):
                self.jitted_result_apis |= self.s.names(first.func)
            if isinstance(first, Name):
                self.jit_wrapped.add(first.id)
                self.applications.append((first.id, self._application(node)))
            elif isinstance(first, Attribute) and isinstance(first.value, Name) and first.value.id == "self":
                self.jit_wrapped.add(first.attr)  # `jax.jit(self.step)`: the method (jit.method_denoted)
                self.jit_wrapped_methods.add(first.attr)
            elif isinstance(first, Lambda):
                self.jit_lambdas.add(id(first))
                self.transforms.setdefault(id(first), (first, []))[1].append(self._application(node))
            self.jit_calls.append((node, tuple(self.functions), bool(self.loops)))
            if self.functions and isinstance(self.functions[-1], (FunctionDef, AsyncFunctionDef)):
                self.jit_factories.add(self.functions[-1].name)
        elif kind is Kind.VMAP and isinstance(node.args[0], Call) and self.s.application(node.args[0]) is Kind.JIT:
            self.vmap_over_jit = True
        if kind is Kind.VMAP:
            self.vmapped = True
            self.vmapped_functions.append(node.args[0])
        elif kind is Kind.BRANCH:
            self.branches = True
            self.branch_calls.add(id(node))
        elif kind is Kind.MAP and any(k.arg == "dims" for k in node.keywords):
            self.maps.append((node, tuple(self.functions)))

    # -- what the gates ask, once the whole file is seen ------------------------------------------
    def remote_python(self, function: str) -> set[str]:
        """The parameters of the def `function` that calls in other modules pass Python values. The one
        way the call evidence of other modules reaches a gate: a gate that never asks finds the same
        with any evidence (Survey.passed_with)."""
        self.asked_remote_python = True
        return self._remote_python.get(function, set())

    def factory_sensitive(self) -> frozenset[str]:
        """The names a factory of another module (`remote_factories`) must bear to change what a gate
        finds: those called in a loop, and the callees whose results are bound to them."""
        return frozenset(self.called_in_loops.union(*(self.assigned_calls.get(name, ()) for name in self.called_in_loops)))

    @property
    def jitted(self) -> bool:
        """The file jit-compiles something: a decorated def, a wrapped name or lambda, a jit call."""
        return bool(self.jit_decorated or self.jit_wrapped or self.jit_lambdas or self.jit_calls)

    def may_be_jitted(self, expr: ast.AST, call: Call | None = None) -> bool:
        """jit.JitAnalysis.jitted_value may find `expr` jitted (`call`: the jit application it is read in)."""
        if isinstance(expr, Name):
            return expr.id in self.jit_decorated or any(b != id(call) for b in self.jit_bindings.get(expr.id, ()))
        return isinstance(expr, Call) and self.s.application(expr) is Kind.JIT

    def may_be_traced(self, functions) -> bool:
        """One of `functions` (enclosing ones) is jit-decorated or -wrapped by name, or a jitted lambda."""
        for fn in functions:
            if isinstance(fn, Lambda):
                if id(fn) in self.jit_lambdas:
                    return True
            elif fn.name in self.jit_decorated or fn.name in self.jit_wrapped:
                return True
        return False

    @property
    def jitted_methods(self) -> bool:
        """A jit-decorated def directly in a class body."""
        return bool(self.jitted_method_names)

    @cached_property
    def traced_functions(self) -> frozenset:
        """Jit-decorated or -wrapped functions and lambdas, and every function name they call (transitively)."""
        return self._reached([*self.jit_decorated, *self.jit_wrapped, *self.jit_lambdas, *self.remote_traced])

    def traced_under(self, question: Callable[[compilers.Compiler], bool]) -> frozenset:
        """The keys (names; lambdas by id) of the functions that a transform may trace, directly or as a
        helper called (or handed on) from there, where that transform may be a compiler `question`
        says yes of (`compilers.Compiler.fails_on_control_flow`...). Every jit of another module, of a
        method (`jax.jit(self.step)`) and every transform not in the table counts."""
        found = self._under.get(("keys", question))
        if found is None:
            work = [*self.remote_traced, *self.jit_wrapped_methods]
            for node, transforms in self.transforms.values():
                if any(self.may_be_compiled(t, question) for t in transforms):
                    work.append(node.name if type(node) is not Lambda else id(node))
            work += [name for name, transform in self.applications if self.may_be_compiled(transform, question)]
            found = self._under[("keys", question)] = self._reached(work)
        return found

    def traced_test_under(self, question: Callable[[compilers.Compiler], bool]) -> bool:
        """A condition or trip count may derive from a tracer (`traced_condition`) in a function
        `traced_under(question)` holds, or one nested in it."""
        found = self._under.get(("test", question))
        if found is None:
            keys = self.traced_under(question) if self.traced_flows else frozenset()
            found = self._under[("test", question)] = any(
                self.inside(f.node, keys) and f.traced_test() for f in self.traced_flows)
        return found

    def _reached(self, work: list) -> frozenset:
        """`work`'s keys and those of every function they call or hand on, transitively (`calls_by`)."""
        seen: set = set()
        while work:
            key = work.pop()
            if key not in seen:
                seen.add(key)
                work.extend(self.calls_by.get(key, ()))
        return frozenset(seen)

    def inside(self, node: ast.AST, keys: frozenset) -> bool:
        """`node` (a def or lambda), or a function it is nested in, has one of these keys."""
        current: ast.AST | None = node
        while current is not None:
            if (current.name if type(current) is not Lambda else id(current)) in keys:
                return True
            current = self.enclosing.get(id(current))
        return False

    @staticmethod
    def may_be_compiled(transform: tuple[list, dict | None], question: Callable[[compilers.Compiler], bool]) -> bool:
        """A jit transform as written (`_transform`: the APIs it may denote, its keywords) may be a compiler
        `question` says yes of. `tf.function` may run without autograph unless its keywords are read
        and say nothing else (`autograph=True`, or none)."""
        apis, keywords = transform
        if not apis:
            return True
        for api in apis:
            if api.name == "tensorflow.function" and (keywords is None or "autograph" in keywords and not (
                    isinstance(keywords["autograph"], Constant) and keywords["autograph"].value is True)):
                return True
            if question(compilers.compiler(api.name)):
                return True
        return False

    @cached_property
    def traced_flows(self) -> list[ast_traced.Function]:
        """The analysed flows (`flows`) of a file with control flow in a traced function or a helper it
        calls; none otherwise."""
        return self.flows().analysed() if self.traced_functions & self.control_flow else []

    @cached_property
    def traced_condition(self) -> bool:
        """A condition or trip count in a traced function may derive from a tracer."""
        return any(f.traced_test() for f in self.traced_flows)

    @contextlib.contextmanager
    def flows_from(self, parameters: Callable[[ast.AST], frozenset[str]]) -> Iterator[list[ast_traced.Function]]:
        """The flows read again from some of the roots' parameters alone (`flows(parameters)`,
        ast_traced.Module.parameters_only); every function's parameters are put back afterwards, as
        the other gates read them. The traced flows are read first, as the other gates read them."""
        self.traced_flows  # noqa: B018
        saved = {key: (function.maybe_params, function.closure) for key, function in self._functions.items()}
        self._module.parameters_only = True
        try:
            yield self.flows(parameters).analysed()
        finally:
            self._module.parameters_only = False
            for key, function in list(self._functions.items()):  # (reading a helper's result may read more defs)
                function.maybe_params, function.closure = saved.get(key, (frozenset(function.params), True))
                function.tainted  # noqa: B018 (the taint the other gates read)

    def _transform(self, expr: ast.AST) -> tuple[list, dict | None]:
        """The APIs a jit decorator may denote and its keywords (`@partial(jax.jit, static_argnums=0)`)."""
        if isinstance(expr, Call):
            keywords = {k.arg: k.value for k in expr.keywords} if all(k.arg for k in expr.keywords) else None
            if self.s.kind(expr.func) is Kind.PARTIAL and expr.args:
                return self.s.apis(expr.args[0]), keywords
            return self.s.apis(expr.func), keywords
        return self.s.apis(expr), {}

    def _application(self, call: Call) -> tuple[list, dict | None]:
        """`_transform` of a call applying a jit (`jax.jit(f, static_argnums=1)`): its keywords and those
        of a factory or partial it calls (`partial(jax.jit, ...)(f)`); a keyword given twice: not readable."""
        if isinstance(call.func, Call):
            apis, keywords = self._transform(call.func)
        else:
            apis, keywords = self.s.apis(call.func), {}
        if keywords is None or not all(k.arg for k in call.keywords) or any(k.arg in keywords for k in call.keywords):
            return apis, None
        return apis, {**keywords, **{k.arg: k.value for k in call.keywords}}

    def flows(self, parameters: Callable[[ast.AST], frozenset[str]] | None = None) -> ast_traced.Flows:
        """ast_flow.py's flows of this file, on ast (ast_traced.Flows): the jit roots with the parameters
        their transforms may trace (each def its own, `@overload` stubs beside it or not).
        `parameters`: a def's own transforms, and a jit of another module, trace only those of its
        parameters this gives; traced functions of other modules seed none."""
        roots: dict[int, tuple[ast.AST, frozenset[str]]] = {}
        fields: dict[int, dict[str, frozenset[str]]] = {}  # filter_jit roots: parameter -> its class's static fields
        field_less: set[int] = set()  # roots some other transform applies to too: no fields
        must: dict[int, frozenset[str]] = {}  # jit-decorated defs: the parameters certainly traced

        def add(node, transforms) -> None:
            every = frozenset(self.function(node).params)
            shared = not isinstance(node, Lambda) and len(self.nodes_by_key.get(node.name, ())) > 1
            maybe = set()
            for apis, keywords in transforms:
                if keywords is None or not apis:
                    maybe |= every
                for api in apis:
                    maybe |= ast_traced.direct_maybe(node, api, keywords) if keywords is not None else every
                if len(apis) == 1 and apis[0].name == "equinox.filter_jit" and keywords is not None and not shared \
                        and id(node) not in field_less:
                    fields[id(node)] = ast_traced.direct_fields(node, apis[0], keywords, self._module)
                else:
                    field_less.add(id(node))
                    fields.pop(id(node), None)
            previous = roots.get(id(node), (node, frozenset()))[1]
            roots[id(node)] = (node, previous | maybe)

        for node, transforms in self.transforms.values():
            add(node, transforms)
            if not isinstance(node, Lambda):  # (a def's transforms here are its decorators)
                must[id(node)] = ast_traced.direct_traced(node, transforms)
            if parameters is not None:
                roots[id(node)] = (node, roots[id(node)][1] & parameters(node))
        for name, transform in self.applications:  # (evidence: the calls of what the application is bound to)
            for node in self.defs(name):
                add(node, [transform])
        # Traced from another module (jit.JitAnalysis._add_remote): applied a jit there, with the static
        # arguments it keeps; or called from a traced function there, with what those calls pass (a
        # helper: calls here may pass more). A def that is a root here already keeps both.
        seeds: dict[int, tuple[ast.AST, frozenset[str]]] = {}
        remote: set[int] = set()
        for trace in self.remote_traces:
            for node in self.defs(trace.function.rsplit(".", 1)[-1]):
                remote.add(id(node))
                every = frozenset(self.function(node).params)
                field_less.add(id(node))
                fields.pop(id(node), None)
                if trace.how == "wrapped":
                    maybe = every if trace.static is None else every - set(trace.static)
                    maybe = maybe & parameters(node) if parameters is not None else maybe
                    roots[id(node)] = (node, roots.get(id(node), (node, frozenset()))[1] | maybe)
                    continue
                maybe = frozenset() if parameters is not None else every & {p.name for p in trace.params if p.trace != "static"}
                if id(node) in roots:
                    roots[id(node)] = (node, roots[id(node)][1] | maybe)
                else:
                    seeds[id(node)] = (node, seeds.get(id(node), (node, frozenset()))[1] | maybe)
        for key in remote & must.keys():
            must[key] = frozenset()  # traced from elsewhere too: which context ast_flow.py reads is not known
        return ast_traced.Flows(roots, self.function, self.defs, fields, seeds, must)

    def defs(self, name: str) -> list[ast.AST]:
        """The defs of the file named `name`, at any depth."""
        return [n for n in self.nodes_by_key.get(name, ()) if not isinstance(n, Lambda)]

    def function(self, node: ast.AST) -> ast_traced.Function:
        """The `ast_traced.Function` of a def or lambda, read with the whole nest it belongs to."""
        root = node
        while self.enclosing.get(id(root)) is not None:
            root = self.enclosing[id(root)]
        if id(root) not in self._nests:
            self._nests[id(root)] = ast_traced.functions_in(root, None, self._module)
            self._functions.update((id(f.node), f) for f in self._nests[id(root)])
        return self._functions[id(node)]

    def traced_nest(self, keys: set) -> list:
        """`ast_traced.Function`s of the functions with these keys and of those nested in them; each
        nest is read from its outermost function, so a nested def sees the names around it."""
        nodes = {id(n): n for key in keys for n in self.nodes_by_key.get(key, ())}
        roots: dict[int, ast.AST] = {}
        for node in nodes.values():
            root = node
            while self.enclosing.get(id(root)) is not None:
                root = self.enclosing[id(root)]
            roots[id(root)] = root
        out = []
        for root in roots.values():
            self.function(root)  # reads the nest
            out.extend(f for f in self._nests[id(root)] if f.inside(nodes))
        return out

    @cached_property
    def _module(self) -> ast_traced.Module:
        module = ast_traced.Module(self.tree, self.s.imported, self.s.stars, self.s.package, self.s.aliases)
        # Helpers' results (ast_traced.Function.returns_maybe). Through a weak reference: the finder
        # holds the module, and a cycle would keep the file's whole tree alive until the collector's
        # next pass found it (runner._one_file).
        finder = weakref.ref(self)
        module.function_of = lambda node: finder().function(node)
        return module


@dataclass(frozen=True)
class Identifiers:
    """Every identifier of a file (names, attributes, import parts) and every keyword-argument name:
    what rules without a syntactic gate here (the migrations) check cheaply before libcst runs."""

    names: frozenset[str]
    keywords: frozenset[str]
    # What attribute chains and imports denote through the file's imports (`jnp.NINF` under
    # `import jax.numpy as jnp` is `jax.numpy.NINF`), shadowing ignored: a superset of libcst's answer.
    # Only whole chains: `a.b` inside `a.b.c` is a prefix of what `a.b.c` denotes.
    qualified: frozenset[str]
    star_imports: bool  # bare names may come from a `*` import: only `names` can tell
    # The modules of the file's `*` imports, in order, and the whole attribute chains whose root no import
    # of the file binds (`math.transpose` under `from phi.flow import *`): what such an import may denote.
    star_modules: tuple[str, ...] = ()
    unimported_chains: frozenset[str] = frozenset()


class _IdentifierSink:
    """Collects a file's identifiers (`Identifiers`) from the nodes shown to it, in any order."""

    def __init__(self, spelling: _Spelling) -> None:
        self.spelling = spelling
        self.names: set[str] = set()
        self.keywords: set[str] = set()
        self.qualified: set[str] = set()
        self.unimported_chains: set[str] = set()
        self.inner: set[int] = set()

    def see(self, node: ast.AST) -> None:
        cls = type(node)
        if cls is Name:
            self.names.add(node.id)
        elif cls is Attribute:
            self.names.add(node.attr)
            if type(node.value) is Attribute:
                self.inner.add(id(node.value))  # `a.b` in `a.b.c`: a prefix of what `a.b.c` denotes
            if id(node) in self.inner:
                return
            root = node.value  # (its name first: most chains start at a local, `self.x`, and need no text)
            while type(root) is Attribute:
                root = root.value
            if type(root) is not Name:
                return
            imported = self.spelling.imported.get(root.id)
            if imported:
                rest = dotted(node).partition(".")[2]  # type: ignore[union-attr]
                self.qualified.update(f"{full}.{rest}" for full in imported)
            elif self.spelling.stars:
                self.unimported_chains.add(dotted(node))  # type: ignore[arg-type]
        elif cls is Import:
            for alias in node.names:
                self.names.update(alias.name.split("."))
                self.qualified.add(alias.name)
        elif cls is ImportFrom:
            if node.module:
                self.names.update(node.module.split("."))
            for alias in node.names:
                self.names.update(alias.name.split("."))
                if node.module and not node.level:
                    self.qualified.add(f"{node.module}.{alias.name}")
        elif cls is ast.keyword and node.arg:
            self.keywords.add(node.arg)

    def identifiers(self) -> Identifiers:
        return Identifiers(frozenset(self.names), frozenset(self.keywords), frozenset(self.qualified),
                           bool(self.spelling.stars), tuple(self.spelling.stars), frozenset(self.unimported_chains))


# What `_IdentifierSink.see` reads besides names (Met.names holds those); all of them are in Met.MARKED.
_IDENTIFYING = frozenset({Attribute, Import, ImportFrom, ast.keyword})


def _factory_sensitive_of(met: Met, kids: dict) -> frozenset[str]:
    """`SyntaxFacts.factory_sensitive` without its walk, from what the summary's walk met (`met`,
    breadth first) and the branches it computed (`kids`): the names called anywhere below a loop or a
    comprehension (the walk's `loops`), and the callees whose results `x = f(...)` binds to them."""
    assigned: dict[str, set[str]] = {}
    loops: list[ast.AST] = []
    for node in met.marked:
        cls = type(node)
        if cls is Assign:
            value = node.value
            if type(value) is Call and type(value.func) is Name:
                for target in node.targets:
                    if type(target) is Name:
                        assigned.setdefault(target.id, set()).add(value.func.id)
        elif cls in LOOPS:
            loops.append(node)
    called: set[str] = set()
    inner: set[int] = set()  # loops met below another: read with it (breadth first, outer loops come first)
    for loop in loops:
        if id(loop) in inner:
            continue
        stack = list(kids.get(id(loop), ()))
        while stack:
            node = stack.pop()
            cls = type(node)
            if cls is Call and type(node.func) is Name:
                called.add(node.func.id)
            elif cls in LOOPS:
                inner.add(id(node))
            stack.extend(kids.get(id(node), ()))
    return frozenset(called.union(*(assigned.get(name, ()) for name in called)))


class Syntax:
    """What a rule's gate (`Rule.ast_gate`) may ask of a file: the facts of its walk (`facts`), and
    its identifiers (computed only if some gate reads them)."""

    def __init__(self, tree: Module, spelling: _Spelling, project=None, roles_given: bool = False,
                 kids: dict | None = None, source: bytes | None = None, met: Met | None = None) -> None:
        self._tree, self._spelling, self._project, self._roles_given = tree, spelling, project, roles_given
        self._kids, self._source, self._met = kids, source, met
        self._loads = met.loads if met is not None else None
        self._walk: SyntaxFacts | None = None  # the walk for facts, once some question needs it (`_walked`)

    @property
    def _walked(self) -> SyntaxFacts:
        if self._walk is None:
            finder = SyntaxFacts(self._spelling, self._project, self._tree, self._roles_given, self._kids,
                                 identify=self._met is None)
            finder.visit(self._tree)
            self._walk = finder
        return self._walk

    @property
    def facts(self) -> SyntaxFacts | None:
        """What the walk found, for the gates to read; None in a file none of whose spellings can
        denote an API (`spells_no_api`): there is nothing for a gate on jit, vmap or gradients to find."""
        return None if self.spells_no_api else self._walked

    @cached_property
    def spells_no_api(self) -> bool:
        """No gate's fact can be found without a walk: every one starts from a spelling that
        denotes an API of the table (`_may_spell_an_api`: none of the file's imports reaches one, or
        none of its reads spells one), from `.with_preprocessing(...)`, or from the traces and
        factories of other modules."""
        return self._source is not None and not self._traced_or_made_elsewhere \
            and not self._may_spell_an_api() and not self.may_call_with_preprocessing()

    @property
    def reads_call_evidence(self) -> bool:
        """Some gate read what calls in other modules pass (SyntaxFacts.remote_python): only then can
        that evidence change what the gates let through."""
        return self._walk is not None and self._walk.asked_remote_python

    @property
    def star_modules(self) -> tuple[str, ...]:
        """The modules the file imports with `*`, absolute where that can be told (ast_resolver.imports_of)."""
        return tuple(self._spelling.stars)

    @property
    def _traced_or_made_elsewhere(self) -> bool:
        """Other modules trace a function of the file or make its jit functions: a function may be jitted
        with no spelling of an API in the file."""
        project = self._project
        return project is not None and bool(project.traces or project.factories)

    def _may_spell_an_api(self) -> bool:
        """Whether a spelling of the file may denote an API: its imports reach one (apis.reaching_roots)
        and, when the summary's walk listed its reads (`Met.loads`), one of them may spell it
        (apis.may_spell_an_api). Every spelling the walk resolves is the outermost of a chain of reads
        (a callee, an argument, a decorator, a value bound), resolved from the name at its root."""
        if not self._roots or self._loads is None:
            return bool(self._roots)
        imported, stars, aliases = self._spelling.imported, self._spelling.stars, self._spelling.aliases
        return any(may_spell_an_api(text, imported, stars, aliases) for text in self._rooted_reads())

    def _rooted_reads(self) -> Iterator[str]:
        """Each read the summary's walk listed (`Met.loads`) that starts at one of `_roots`, spelled once."""
        roots = self._roots
        asked: set[str] = set()
        name, attribute = Name, Attribute
        for node in self._loads:
            root = node
            while type(root) is attribute:
                root = root.value
            if type(root) is name and root.id in roots:
                text = root.id if root is node else dotted(node)
                if text not in asked:
                    asked.add(text)
                    yield text

    @cached_property
    def _roots(self) -> frozenset[str]:
        """The file's names a spelling of an API may start at (apis.reaching_roots)."""
        return reaching_roots(self._spelling.imported, self._spelling.stars, self._spelling.aliases)

    def spells(self, *kinds: Kind) -> bool:
        """Whether a read of the file may spell an API of one of these kinds (True when that cannot be
        told without the walk). A gate asks first, and pays for `facts` only if so: the walk finds an
        application, decorator or call of the table's APIs only through a spelling among the reads
        (`_may_spell_an_api`), and other modules' traces and factories make a function jitted with
        none (then this cannot tell)."""
        spelled = self._spelled_kinds
        return spelled is None or not spelled.isdisjoint(kinds)

    @cached_property
    def _spelled_kinds(self) -> frozenset[Kind] | None:
        """The kinds of the APIs the file's reads may spell (every Name/Attribute read, outermost of its
        chain: the summary's walk lists them); None: not listed, or other modules trace or make
        factories for this file."""
        if self._loads is None or self._traced_or_made_elsewhere:
            return None
        imported, stars, aliases = self._spelling.imported, self._spelling.stars, self._spelling.aliases
        return frozenset(api.kind for text in self._rooted_reads() for api in spelled_apis(text, imported, stars, aliases))

    def may_spell(self, word: bytes) -> bool:
        """Whether `word` may be in the source as CPython reads its names (ast_names.words_text): an
        identifier the source does not spell (a keyword's name, an attribute's) is nowhere in its ast.
        True when the source is not at hand."""
        return self._source is None or word in words_text(self._source)

    def may_call_with_preprocessing(self) -> bool:
        """`x.with_preprocessing(...)`, a solver call by its own name (`SyntaxFacts.visit_Call`), in the
        source as CPython reads its names (CPython reads `ｗ` as `w`; a `# coding: utf-7` file spells
        `_` as `+AF8-`)."""
        return b"with_preprocessing" in words_text(self._source)

    @property
    def factory_sensitive(self) -> frozenset[str] | None:
        """The names whose being a jit factory of another module could change a gate
        (SyntaxFacts.factory_sensitive); None: any name might (not walked, and the summary's walk is not
        at hand)."""
        if self._walk is not None or self._met is None and not self.spells_no_api:
            return self._walked.factory_sensitive()
        return _factory_sensitive_of(self._met, self._kids) if self._met is not None and self._kids else None

    @cached_property
    def identifiers(self) -> Identifiers:
        if self._met is not None:
            # Read off what the summary's walk met (every node, as the walk for facts meets them), each
            # node after its parent (breadth first), as `_IdentifierSink` needs them: the walk for facts
            # does not collect them again.
            sink = _IdentifierSink(self._spelling)
            sink.names |= self._met.names
            see, identifying = sink.see, _IDENTIFYING
            for node in self._met.marked:
                if type(node) in identifying:
                    see(node)
            return sink.identifiers()
        return self._walked.identifiers.identifiers()  # collected by the same walk

    @cached_property
    def calls(self) -> list[Call]:
        """Every call of the file, in no order a gate may rely on: for gates that look at arguments.
        Off the branches the summary's walk computed, when the file has not been walked for facts."""
        if self._walk is None and self._kids:
            call = Call
            return [node for found in self._kids.values() for node in found if type(node) is call]
        return self._walked.all_calls

    def defs(self, name: str) -> list[FunctionDef | AsyncFunctionDef]:
        """The defs of the file named `name`, at any depth."""
        return self._walked.defs(name)

    @property
    def decorated(self) -> list[FunctionDef | AsyncFunctionDef]:
        """Every def of the file with decorators."""
        return self._walked.decorated

    def apis(self, node: ast.AST) -> set[str]:
        """The APIs a Name/Attribute spelling may denote through the file's imports."""
        return self._spelling.names(node)

    @property
    def tree(self) -> Module:
        return self._tree

    def module_level(self, name: str) -> bool:
        """`name` may be bound at module level (an import anywhere, a module-level binding, a `*`
        import): only such a name has a qualified name outside the function it is read in."""
        module = self._walked._module
        return name in self._spelling.imported or name in module.bound or name in module.defs or bool(self._spelling.stars)

    @property
    def imported(self) -> dict[str, set[str]]:
        """Local name -> the qualified names its imports bind it to (`jnp` -> {`jax.numpy`})."""
        return self._spelling.imported


def syntax_of(source: bytes, project=None, tree: Module | None = None, roles_given: bool = False,
              kids: dict | None = None, met: Met | None = None, package: str = "",
              aliases: Aliases | None = None) -> Syntax | None:
    """None when `ast` cannot parse it (libcst reports why). `tree`: its ast, when the caller has it;
    `kids`, `met`: the branches of its nodes by id and what else a walk of it met, when one has them
    (project.summary.summarize); `package`: the one its relative imports start from (World.package),
    and `project`'s aliases (or `aliases`, given): the names its imports denote, as the libcst analysis
    reads them."""
    tree = tree if tree is not None else parse(source)
    if tree is None:
        return None
    if aliases is None:
        aliases = project.alias_map() if hasattr(project, "alias_map") else NO_ALIASES
    spelling = _Spelling(tree, package, aliases)
    return Syntax(tree, spelling, project, roles_given, kids, source, met)


def filter_codemods(source: bytes, codemods: list, project=None, tree: Module | None = None,
                    roles_given: bool = False, package: str = "") -> list:
    """The codemods whose gate holds on `source` (rules without a gate always pass). `project`: the
    facts other modules give the file (functions they trace, factories of theirs it imports);
    `tree`: its ast, when the caller has parsed it already; `roles_given`: the jitted functions'
    parameters have roles read elsewhere (an editor's slice of a buffer: Settings.callsite_facts);
    `package`: the one its relative imports start from (World.package)."""
    if not any(has_gate(c) for c in codemods):
        return codemods
    syntax = syntax_of(source, project, tree, roles_given, package=package)
    if syntax is None:
        return codemods
    return [c for c in codemods if c.ast_gate(syntax)]


def has_gate(codemod) -> bool:
    """The rule has a gate of its own (`Rule.ast_gate`); the default lets every file through."""
    return codemod.ast_gate.__func__ is not Rule.ast_gate.__func__
