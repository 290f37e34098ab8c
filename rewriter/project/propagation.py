"""The facts that cross modules, computed from the index's summaries and kept current as they change.

What each module's own code contributes (its calls resolved to the functions they reach, its jit
functions, the factories it imports) is computed once per module and kept with the modules its
resolution read; an update recomputes exactly the modules whose contributions may have changed and
takes their old contributions out of the totals. What needs the whole graph (traced values
propagated from every jit function, which functions run only inside traces) is recomputed from those
totals, over the functions jit functions reach, not over every call of the project.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..analysis.apis import Kind, canonical, is_module, lookup, matters
from ..analysis.facts import FileFacts, ParamFact, Reexport, RemoteArg, RemoteCall, RemoteFactory, RemoteTrace
from ..analysis.installed import star_exports, version
from ..analysis.static_names import static_by_declaration
from .denotations import Fn, Jitted
from .summary import ARRAY, NONE, PARAMS, PYTHON, Call, Function, static_from_spec

TRACED, STATIC, UNKNOWN = "traced", "static", "unknown"
_ORDER = {STATIC: 0, UNKNOWN: 1, TRACED: 2}
# Transforms that trace arrays and key their traces on Python values: whether a parameter is traced
# depends on what each call passes, which the per-file analysis reads from the calls it sees.
_PER_VALUE_TRACES = frozenset({"equinox.filter_jit", "tensorflow.function"})
MAX_HOPS = 3  # calls followed from a jit function: the per-file analysis follows helpers about as deep
MAX_PREDICATE_DEPTH = 20  # predicates built on predicates followed this deep (Function.python_if)


@dataclass
class _Local:
    """One module's own contributions, resolved."""

    edges: list = field(default_factory=list)  # (caller key, Call, callee Fn) for calls that reach a function
    roots: list = field(default_factory=list)  # Jitted: its jit functions (decorated defs, jit bindings)
    evidence: dict = field(default_factory=dict)  # module of a jit def elsewhere -> [RemoteCall] this module makes
    factories: list = field(default_factory=list)  # (RemoteFactory, the module that defines the factory)
    python_results: list = field(default_factory=list)  # (local name, the module of the def): summary.Function.returns_python
    python: list = field(default_factory=list)  # (callee key, parameter, where): a Python literal passed
    aliases: dict = field(default_factory=dict)  # absolute name it imports or reads -> what it denotes outside the project
    reexports: dict = field(default_factory=dict)  # module of the project it imports -> (installed module, own names)
    classes: set = field(default_factory=set)  # absolute names it imports or reads of classes of the project
    properties: dict = field(default_factory=dict)  # those of them -> their shape properties (FileFacts.shape_properties)
    alias_sources: set = field(default_factory=set)  # the modules those were read from
    reads: set = field(default_factory=set)  # the (module, name) pairs its resolution read


@dataclass
class _Edge:
    """A call from a traced function into one of the project: what its arguments carry into the callee."""
    caller: str
    where: str
    api: frozenset  # the jit transforms the caller runs under
    params: dict  # callee parameter -> (trace, why, origin): see _bind
    module: str  # the caller's module


class Propagation:
    def __init__(self, index) -> None:
        self.index = index
        self.locals: dict[str, _Local] = {}
        self.readers: dict[tuple, set[str]] = {}  # (module, name) -> the modules whose _Local read it
        self.callers: dict[tuple, Counter] = {}  # function -> its callers (function keys; (module, "<module>"))
        self.python: dict[tuple, dict[str, Counter]] = {}  # function -> parameter -> where a literal is passed
        self.out_edges: dict[tuple, list] = {}  # function -> [(callee Fn, Call)]
        self.evidence: dict[str, dict[str, list]] = {}  # module of a jit def -> calling module -> [RemoteCall]
        self._traced: _TracedState | None = None  # the last propagation of traced values
        self._changed: set[str] = set()  # modules whose contributions changed since
        self._literals_changed: set[tuple] = set()  # functions some call passes a Python literal, changed since

    # -- keeping the totals current ------------------------------------------------------------
    def forget(self, module: str, everything: bool = False, names: set[str] = frozenset()) -> None:
        """`module` changed: its own contributions, and those of the modules that read one of `names`
        of it, are computed again (`everything`: a module came or went, and a name that did not
        resolve may now)."""
        if everything:
            stale = set(self.locals)
        else:
            stale = {module}
            for name in names:
                stale |= self.readers.pop((module, name), set())
            if names:  # a name that came or went changes the own names of a module re-exporting another whole
                stale |= self.readers.pop((module, ""), set())
        for name in stale:
            local = self.locals.pop(name, None)
            if local is not None:
                self._take_out(name, local)

    def _take_out(self, module: str, local: _Local) -> None:
        self._changed.add(module)
        self._literals_changed.update(callee for callee, _, _ in local.python)
        for caller, _, callee in local.edges:
            counter = self.callers.get(callee.key())
            if counter is not None:
                counter[caller] -= 1
                if counter[caller] <= 0:
                    del counter[caller]
            self.out_edges.pop(caller, None)
        for callee, param, where in local.python:
            self.python[callee][param][where] -= 1
            if self.python[callee][param][where] <= 0:
                del self.python[callee][param][where]
        for target in local.evidence:
            self.evidence.get(target, {}).pop(module, None)

    def _put_in(self, module: str, local: _Local) -> None:
        self._changed.add(module)
        self._literals_changed.update(callee for callee, _, _ in local.python)
        self.locals[module] = local
        for read in local.reads:
            self.readers.setdefault(read, set()).add(module)
        for caller, call, callee in local.edges:
            self.callers.setdefault(callee.key(), Counter())[caller] += 1
            if call is not None:
                self.out_edges.setdefault(caller, []).append((callee, call))
        for callee, param, where in local.python:
            self.python.setdefault(callee, {}).setdefault(param, Counter())[where] += 1
        for target, calls in local.evidence.items():
            self.evidence.setdefault(target, {})[module] = calls

    # -- one module ----------------------------------------------------------------------------
    def _local(self, module: str) -> _Local:
        index = self.index
        summary = index.modules[module]
        near = index.near(module)
        bare = module.partition("@")[0]
        out = _Local()

        def resolve(target: str, line: int | None):
            result, trail = index.resolved_trail(target, line if target.startswith(bare + ".") else None, near)
            out.reads |= trail
            return result

        for name, function in summary.functions.items():
            jit = function.jit if function.jit is not None else self._reexported_jit(function, near, out)
            if jit is not None:
                api, framework, static = jit
                out.roots.append(Jitted(Fn(module, name), api, framework, _tuple(static), module, name, function.line, False))
            for inner_name, inner in function.nested.items():
                if inner.jit is not None:
                    api, framework, static = inner.jit
                    qualified = f"{name}.{inner_name}"
                    out.roots.append(Jitted(Fn(module, qualified), api, framework, _tuple(static), module, qualified,
                                            inner.line, False))
        for name, bindings in summary.bindings.items():
            for binding in bindings:
                if binding[1] == "jit":
                    found = resolve(f"{bare}.{name}", binding[0] + 1)
                    if isinstance(found, Jitted) and found.function is not None:
                        out.roots.append(found)
        python: dict = {}  # Fn -> whether it returns a Python value (`_returns_python`), for this module's reads
        for call, line, caller in _calls_with_callers(module, summary):
            callee = resolve(call.target, line)
            jitted = callee if isinstance(callee, Jitted) else None
            fn = jitted.function if jitted is not None else callee
            if not isinstance(fn, Fn):
                continue
            target = index.function(fn)
            out.reads.add((fn.module, fn.name.partition(".")[0]))
            if target is None:
                continue
            spelled = call.target[len(bare) + 1:] if call.target.startswith(bare + ".") else ""
            if jitted is None and "." in spelled and not summary.stars and _one(summary.bindings.get(spelled.partition(".")[0], ())) \
                    and self._single(index.resolved_trail(call.target, None, near)[1]) \
                    and self._returns_python(fn, target, out.reads, python):
                out.python_results.append((spelled, fn.module))  # `helpers.is_scalar(x)`: its spelling here
            out.edges.append((caller, call, fn))
            positional = target.params[: target.positional]
            for key, kind, _ in call.args:
                name = positional[key] if isinstance(key, int) and key < len(positional) else key
                if kind in (PYTHON, NONE) and isinstance(name, str) and name in target.params:
                    out.python.append((fn.key(), name, index.where(module, call.line)))
            if jitted is not None and not (fn.module == module and jitted.module == module):
                args, complete = _remote_args(target, call)  # its own calls: the module's own analysis sees them
                out.evidence.setdefault(fn.module, []).append(
                    RemoteCall(fn.name, index.where(module, call.line), tuple(args), complete))
        for target, line in summary.references:  # uses that are not calls seen here: callers it cannot see into
            found = resolve(target, line)
            jitted = found if isinstance(found, Jitted) else None
            fn = jitted.function if jitted is not None else found
            if not isinstance(fn, Fn):
                continue
            out.edges.append(((module, "<reference>"), None, fn))
            if jitted is not None and not (fn.module == module and jitted.module == module):
                out.evidence.setdefault(fn.module, []).append(RemoteCall(fn.name, index.where(module, line), (), complete=False))
        for name, bindings in summary.bindings.items():
            line, kind, *detail = bindings[-1]
            if kind not in ("import", "alias") or len(bindings) != 1:
                continue
            found = resolve(detail[0], None)
            if not isinstance(found, Fn) or found.module == module:
                continue
            function = index.function(found)
            out.reads.add((found.module, found.name.partition(".")[0]))
            if function is None or function.decorated:
                continue
            if not summary.stars and self._single(index.resolved_trail(detail[0], None, near)[1]) \
                    and self._returns_python(found, function, out.reads, python):
                out.python_results.append((name, found.module))
            if function.returns_jit is not None:
                api, framework = function.returns_jit
            elif function.returns_new_function:
                api, framework = "", ""
            else:
                continue
            out.factories.append((RemoteFactory(name, api, framework, index.where(found.module, function.line), found.name,
                                                index.paths.get(found.module, ""), function.line), found.module))
        self._reexported(module, summary, near, out)
        return out

    def _reexported_jit(self, function: Function, near: str, out: _Local) -> list | None:
        """[api, framework, static parameters] of a def whose decorator is a jit transform through the
        project's re-exports (Function.maybe_jit: `@math.jit_compile` with the package's own `math`)."""
        if function.maybe_jit is None:
            return None
        target, spec = function.maybe_jit
        found, trail = self.index.reexport_trail(target, near)
        out.reads |= trail
        api = lookup(found[1]) if found is not None and found[0] == "outside" else None
        if api is None or api.kind is not Kind.JIT:
            return None
        positional = function.params[: function.positional]
        spec = {k: v for k, v in spec.items() if k in api.static_keywords} if spec is not None else None
        static = static_from_spec(spec, positional, function.params)
        if static is not None and api.name == "phiml.math.jit_compile_linear" and "auxiliary_args" not in spec:
            static = sorted(set(static) | set(function.params[1:]))  # every parameter after the first is auxiliary
        return [api.name, api.framework, static]

    def _reexported(self, module: str, summary, near: str, out: _Local) -> None:
        """What the names the module imports from modules of the project denote where those modules
        re-export them from outside the project (analysis/aliases.py): each imported name, each attribute
        chain it reads through an imported module, each name it reads that a star import of a module of
        the project may bind; and the imported modules that re-export an installed one whole."""
        index = self.index
        bare = module.partition("@")[0]
        chains = {call.target for call, _, _ in _calls_with_callers(module, summary)}
        chains.update(target for target, _ in summary.references)
        imported = {b[2] for bindings in summary.bindings.values() for b in bindings if b[1] == "import" and len(b) > 2}
        # A read is spelled through the module's own names (`pkg.sim.kernel.math.batch`): through an import's
        # target when the name is bound by imports of one target alone (`pkg.math.batch`)
        by_import = {}
        for name, bindings in summary.bindings.items():
            targets = {b[2] if b[1] == "import" and len(b) > 2 else None for b in bindings}
            if len(targets) == 1 and None not in targets:
                by_import[name] = targets.pop()
        reads = set()
        for chain in chains:
            local, _, rest = chain[len(bare) + 1:].partition(".") if chain.startswith(bare + ".") else ("", "", "")
            if local in by_import and rest:
                reads.add(f"{by_import[local]}.{rest}")
            elif not local:
                reads.add(chain)

        def denote(name: str, star: bool = False) -> bool:
            """Record what `name` denotes; whether it is settled (a name of the project or outside it)."""
            found, trail = index.reexport_trail(name, near)
            out.reads |= trail
            if found is None:
                return False
            kind, target = found
            if kind == "outside":
                # (a package of the project that is an installed one says so already; a name no rule reads
                # anything of, `jaxlib.xla_client`, is what its spelling says)
                if canonical(name) != target and matters(target):
                    out.aliases[name] = target
            else:
                if kind == "class":
                    out.classes.add(name)
                    properties = index.class_properties(target)
                    if properties:
                        out.properties[name] = properties
                if star and not is_module(name.rpartition(".")[0]) and len(summary.stars) > 1:
                    out.aliases[name] = name  # the project's own: not what an earlier star import binds
            out.alias_sources.add(target.rpartition(".")[0] if kind != "outside" else name.rpartition(".")[0])
            return True

        def whole(name: str) -> None:
            found = index.modules.get(name) if name in index.modules else None
            if found is None or name in out.reexports:
                return
            out.reads.add((name, ""))
            reexported = index.whole_reexport(name)
            if reexported is not None and not is_module(name) and matters(reexported[0]):  # (an installed module's names canonicalize already)
                out.reexports[name] = reexported
                out.alias_sources.add(name)

        for target in imported:
            if not index._in_project(target, near) or target.startswith(bare + ".") or version(target.partition(".")[0]):
                continue  # (in a package the installed facts were read from, installed.canonical knows its re-exports)
            if not denote(target):
                whole(target)
                for chain in reads:
                    if chain.startswith(target + "."):
                        parts = chain.split(".")
                        for i in range(target.count(".") + 2, len(parts) + 1):
                            prefix = ".".join(parts[:i])
                            if prefix in index.modules:
                                whole(prefix)
                            elif denote(prefix):
                                break
        stars = [star for star in summary.stars if index._in_project(star, near) and not version(star.partition(".")[0])]
        for star in stars:
            whole(star)
        if stars:
            own = set(summary.bindings)
            for chain in chains:
                if not chain.startswith(bare + "."):
                    continue
                name = chain[len(bare) + 1:].partition(".")[0]
                if name in own:
                    continue
                for star in reversed(summary.stars):
                    if star in stars:
                        if denote(f"{star}.{name}", star=True) or index._binds(star, name, near):
                            break
                    else:
                        exports = star_exports(star)
                        if exports is None or name in exports:
                            break  # (the file's own analysis reads the installed module's exports)

    def _returns_python(self, fn: Fn, function: Function, reads: set, known: dict, seen: frozenset = frozenset()) -> bool:
        """`function` (the def `fn` denotes) returns a Python value whatever it is given: its summary
        says so (`Function.returns_python`), or says so of its returns but for calls of other functions
        (`Function.python_if`), each of which does too (followed through the index; a cycle does not).
        What it reads goes into `reads`; `known` remembers the answers of one module's reading."""
        if function.returns_python:
            return True
        if not function.python_if or function.decorated or fn in seen or len(seen) >= MAX_PREDICATE_DEPTH:
            return False
        found = known.get(fn)
        if found is None:
            found = True
            for target in function.python_if:
                callee, trail = self.index.resolved_trail(target, None, self.index.near(fn.module))
                reads |= trail
                inner = self.index.function(callee) if isinstance(callee, Fn) else None
                if isinstance(callee, Fn):
                    reads.add((callee.module, callee.name.partition(".")[0]))
                if inner is None or not self._single(trail) \
                        or not self._returns_python(callee, inner, reads, known, seen | {fn}):
                    found = False
                    break
            known[fn] = found
        return found

    def _single(self, trail) -> bool:
        """Every name a resolution read is bound once in its module (`try: from fast import f` / `except:
        def f` may be either), and no star import there may bind it again."""
        modules = self.index.modules
        return all(not modules[module].stars and _one(modules[module].bindings.get(name, ()))
                   for module, name in trail if module in modules)

    # -- the whole project -----------------------------------------------------------------------
    def run(self) -> dict[str, FileFacts]:
        for module in self.index.modules:
            if module not in self.locals:
                self._put_in(module, self._local(module))
        roots = [root for local in self.locals.values() for root in local.roots]
        if self._traced is None:
            self._traced = _TracedState(self)
            self._traced.propagate(roots, None)
        elif self._changed:
            self._traced.propagate(roots, self._changed, self._literals_changed)
        self._changed, self._literals_changed = set(), set()
        values = self._traced.values
        remote = {callee: list(edges.values()) for callee, edges in self._traced.remote.items() if edges}
        only_traced = self._only_traced(roots, values)
        traces: dict[str, list[RemoteTrace]] = {}
        sources: dict[str, set[str]] = {}
        display = self.index.display
        for root in roots:  # `step = jax.jit(physics.forward)` in train.py: physics.forward is traced, as train.py says
            fn = root.function
            if root.by_binding and fn.module != root.module:
                traces.setdefault(fn.module, []).append(RemoteTrace(
                    fn.name, "wrapped", root.api, root.name, self.index.where(root.module, root.line), static=root.static))
                sources.setdefault(fn.module, set()).add(display(root.module))
        for (module, name), edges in remote.items():
            if (module, name) not in only_traced:
                continue
            params: dict[str, tuple] = {}
            for edge in edges:
                params = _join_params(params or None, edge.params)
            traced = {p: (why, origin) for p, (t, why, origin) in params.items() if t == TRACED}
            if not traced:
                continue  # only tracers cross modules: "cannot tell" stays a file's own verdict
            apis = frozenset().union(*(e.api for e in edges))
            if len({_framework(api) for api in apis}) != 1:
                continue  # traced by two frameworks' jit: which `where` a rewrite would use is not one answer
            first = min(edges, key=lambda e: e.where)
            callers = sorted({f"`{e.caller}` ({e.where})" for e in edges})
            traces.setdefault(module, []).append(RemoteTrace(
                name, "called", min(apis), ", ".join(callers), first.where,
                params=tuple(ParamFact(p, TRACED, why, self.index.paths.get(origin[0], ""), origin[1], origin[2])
                             for p, (why, origin) in sorted(traced.items()))))
            sources.setdefault(module, set()).update(display(e.module) for e in edges)
        out = {}
        for module in self.index.modules:
            calls = [call for caller, made in self.evidence.get(module, {}).items() for call in made]
            for caller, made in self.evidence.get(module, {}).items():
                if made:
                    sources.setdefault(module, set()).add(display(caller))
            factories = [f for f, _ in self.locals[module].factories]
            for _, origin in (*self.locals[module].factories, *self.locals[module].python_results):
                sources.setdefault(module, set()).add(display(origin))
            local = self.locals[module]
            for origin in local.alias_sources:
                if origin in self.index.modules:
                    sources.setdefault(module, set()).add(display(origin))
            facts = FileFacts(
                traces=tuple(sorted(traces.get(module, ()), key=_order)),
                calls=tuple(sorted(calls, key=lambda c: (c.function, c.where, repr(c.args)))),
                factories=tuple(sorted(factories, key=lambda f: f.name)),
                python_results=tuple(sorted({name for name, _ in local.python_results})),
                aliases=tuple(sorted(local.aliases.items())),
                reexports=tuple(Reexport(name, installed, own) for name, (installed, own) in sorted(local.reexports.items())),
                classes=tuple(sorted(local.classes)),
                shape_properties=tuple(sorted(local.properties.items())),
                sources=tuple(sorted(sources.get(module, ()))),
            )
            if facts:
                out[module] = facts
        return out

    def _only_traced(self, roots: list, values: dict) -> set:
        """The functions that run only inside traces: jit functions, and functions every caller of which
        runs only inside traces (a greatest fixpoint). A function also called eagerly, from a module's
        top level or from code no jit function reaches, is general-purpose: it must work on Python
        values and arrays alike, and what a traced caller elsewhere passes it says little about its
        branches. Only these get facts from other modules."""
        fixed = {root.function.key() for root in roots}
        candidates = set(values) | fixed
        changed = True
        while changed:
            changed = False
            for key in list(candidates - fixed):
                if any(caller not in candidates for caller in self.callers.get(key, ())):
                    candidates.discard(key)
                    changed = True
        return candidates


class _TracedState:
    """Traced values from every jit function through the calls, up to MAX_HOPS calls deep, and the
    edges that cross modules, per function they reach. After an update only the functions the changed
    modules' functions reach (by the calls of now, or of before) are propagated again: nothing else
    can have a different value, since no call leads from them to the rest."""

    def __init__(self, propagation: Propagation) -> None:
        self.p = propagation
        self.values: dict[tuple, dict] = {}
        self.depth: dict[tuple, int] = {}
        self.api_of: dict[tuple, frozenset] = {}  # function -> the jit transforms it runs under
        self.remote: dict[tuple, dict] = {}  # function -> (caller, line, col) -> _Edge, for callers elsewhere
        self.succ: dict[tuple, set] = {}  # function -> the functions its processed calls reached

    def propagate(self, roots: list, changed: set[str] | None, literals: set = frozenset()) -> None:
        """`changed`: the modules whose contributions changed (None: everything, from scratch);
        `literals`: the functions for which what calls pass as Python literals changed."""
        if changed is None:
            redo = None
        else:
            redo = self._downstream(roots, changed, literals)
            if not redo:
                return
            for key in redo:
                self.values.pop(key, None)
                self.depth.pop(key, None)
                self.api_of.pop(key, None)
                self.remote.pop(key, None)
                self.succ.pop(key, None)
            for edges in self.remote.values():
                for edge_key in [k for k in edges if k[0] in redo]:
                    del edges[edge_key]
        work: list[tuple] = []
        for root in roots:
            key = root.function.key()
            if redo is None or key in redo:
                start = self._start(root)
                if start is not None:
                    self.values[key] = _join_params(self.values.get(key), start)
                    self.depth[key] = 0
                    self.api_of[key] = self.api_of.get(key, frozenset()) | {root.api}
                    work.append(key)
        if redo is not None:  # the calls into what is propagated again, from what is not
            for key in redo:
                for caller in self.p.callers.get(key, ()):
                    if caller in self.values and caller not in redo:
                        self._process(caller, work, only=redo)
        rounds = 0
        while work and rounds < 20000:
            rounds += 1
            self._process(work.pop(), work)

    def _downstream(self, roots: list, changed: set[str], literals: set) -> set:
        """The functions of changed modules (reached before, or jit functions now), those whose literal
        arguments changed, and everything they reach through the calls of now or of before."""
        seeds = {key for key in self.values if key[0] in changed or key in literals}
        seeds |= {root.function.key() for root in roots if root.module in changed or root.function.module in changed}
        now = {root.function.key() for root in roots}
        seeds |= {key for key, hops in self.depth.items() if hops == 0 and key not in now}  # jit functions no more
        out, stack = set(), list(seeds)
        while stack:
            key = stack.pop()
            if key in out:
                continue
            out.add(key)
            stack.extend(callee.key() for callee, _ in self.p.out_edges.get(key, ()))
            stack.extend(self.succ.get(key, ()))
        return out

    def _start(self, root) -> dict | None:
        index = self.p.index
        function = index.function(root.function)
        if function is None:
            return None
        where = index.where(root.module, root.line)
        start = {}
        for i, param in enumerate(function.params):
            if root.api in _PER_VALUE_TRACES:
                start[param] = (UNKNOWN, f"`{param}`: `{root.api}` keeps Python values Python (one trace per value)", None)
            elif root.static is None:
                start[param] = (UNKNOWN, f"`{param}`: the static arguments of `{root.api}` at {where} cannot be read", None)
            elif param in root.static or static_by_declaration(param, function.annotations.get(param), root.framework):
                start[param] = (STATIC, "", None)
            elif i == 0 and param in ("self", "cls"):
                start[param] = (UNKNOWN, f"`{param}`: configuration read through `{param}`", None)
            else:
                # Where the tracer starts: a related location of the findings it leads to in other modules.
                origin = (root.module, root.line, f"`{root.name}` is traced by `{root.api}` here")
                start[param] = (TRACED, f"`{param}`: parameter of `{root.name}`, traced by `{root.api}`", origin)
        return start

    def _process(self, key: tuple, work: list, only: set | None = None) -> None:
        """Bind the calls a traced function makes (`only`: those into these functions)."""
        if self.depth[key] >= MAX_HOPS:
            return  # as far as the per-file analysis follows helpers: deeper, a flow-insensitive guess
        index = self.p.index
        caller = index.function(Fn(*key))
        if caller is None:
            return
        current = self.values[key]
        for callee, call in self.p.out_edges.get(key, ()):
            ckey = callee.key()
            if only is not None and ckey not in only:
                continue
            target = index.function(callee)
            if target is None:
                continue
            self.succ.setdefault(key, set()).add(ckey)
            passed = _bind(target, call, current, caller.name)
            for name, where in self.p.python.get(ckey, {}).items():
                if where and passed.get(name, (STATIC,))[0] == TRACED:
                    passed[name] = (UNKNOWN, f"`{name}` of `{target.name}` is also passed a Python value (at {min(where)})", None)
            apis = self.api_of.get(ckey, frozenset()) | self.api_of[key]
            api_changed = apis != self.api_of.get(ckey)
            self.api_of[ckey] = apis
            if callee.module != key[0]:
                self.remote.setdefault(ckey, {})[(key, call.line, call.col)] = _Edge(
                    caller.name, index.where(key[0], call.line), self.api_of[key], passed, key[0])
            merged = _join_params(self.values.get(ckey), passed)
            hops = self.depth[key] + 1
            if hops < self.depth.get(ckey, MAX_HOPS + 1):
                self.depth[ckey] = hops
                self.values[ckey] = merged
                work.append(ckey)
            elif merged != self.values.get(ckey) or api_changed:
                self.values[ckey] = merged
                work.append(ckey)


def _framework(api: str) -> str:
    found = lookup(api)
    return found.framework if found is not None else api


def _one(bindings) -> bool:
    """A name's bindings in a module denote one thing: one binding, or `import pkg.a` and `import pkg.b`
    (each binds `pkg` to the package)."""
    return len(bindings) <= 1 or all(b[1] == "import" for b in bindings) and len({tuple(b[1:]) for b in bindings}) == 1


def _calls_with_callers(module: str, summary):
    for call in summary.calls:
        yield call, call.line, (module, "<module>")
    for name, function in summary.functions.items():
        for call in function.calls:
            yield call, None, (module, name)
        for inner_name, inner in function.nested.items():
            for call in inner.calls:
                yield call, None, (module, f"{name}.{inner_name}")
    for name, calls in summary.methods.items():
        for call in calls:
            yield call, None, (module, name)


def _tuple(value) -> tuple | None:
    return None if value is None else tuple(value)


def _order(fact) -> tuple:
    return (fact.function, fact.where)


def _join(a: tuple, b: tuple) -> tuple:
    """Of two (trace, why, origin) values, the one that is more traced (at equal trace, the smaller why)."""
    if _ORDER[b[0]] > _ORDER[a[0]]:
        return b
    if _ORDER[b[0]] == _ORDER[a[0]] and b[1] < a[1]:
        return b  # a stable reason whatever the order the callers were seen in
    return a


def _join_params(current: dict | None, new: dict) -> dict:
    if current is None:
        return dict(new)
    out = dict(current)
    for name, value in new.items():
        out[name] = _join(out[name], value) if name in out else value
    return out


def _bind(target: Function, call: Call, values: dict, caller: str) -> dict[str, tuple]:
    """The value, (trace, why, origin), each parameter of `target` receives at `call`, inside a traced
    caller. origin: where a tracer starts, (module, line, what happens there), else None."""
    out = {p: (STATIC, "", None) for p in target.params}  # left at their defaults: Python values
    if call.starred:
        return {p: (UNKNOWN, f"`{p}`: passed through `*args`/`**kwargs` by `{caller}`", None) for p in target.params}
    positional = target.params[: target.positional]
    for key, kind, detail in call.args:
        if isinstance(key, int):
            if key >= len(positional):
                continue
            name = positional[key]
        else:
            name = key
            if name not in out:
                continue
        if kind in (PYTHON, NONE):
            out[name] = (STATIC, "", None)
        elif kind == PARAMS:
            joined = (STATIC, "", None)
            for param in detail:
                joined = _join(joined, values.get(param, (UNKNOWN, f"`{param}`: not known", None)))
            if joined[0] == TRACED:
                joined = (TRACED, f"{joined[1]} -> `{name}`: parameter of `{target.name}`", joined[2])
            out[name] = joined
        elif kind == ARRAY:
            out[name] = (UNKNOWN, f"`{name}`: an array built in `{caller}`", None)
        else:
            out[name] = (UNKNOWN, f"`{name}`: an argument of unknown kind from `{caller}`", None)
    return out


def _remote_args(target: Function, call: Call) -> tuple[list[RemoteArg], bool]:
    if call.starred:
        return [], False
    positional = target.params[: target.positional]
    out, complete = [], True
    for key, kind, detail in call.args:
        if isinstance(key, int):
            if key >= len(positional):
                complete = False
                continue
            name = positional[key]
        else:
            name = key
            if name not in target.params:
                complete = False
                continue
        shown = kind if kind in (PYTHON, ARRAY, NONE) else "unknown"
        out.append(RemoteArg(name, shown, detail if kind == PYTHON else None))
    return out, complete
