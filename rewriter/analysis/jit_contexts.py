"""Jit contexts, as the reading on CPython's `ast` builds them (ast_jit.py): which functions are traced, by
which transform, how, and which of their parameters stay static.

The order is the analyses' own: the decorated defs, then the functions jit applications wrap, then
those other modules trace, then the helpers traced bodies call. A reading says what its tree holds:
the decorated defs, applications and calls per function it collected (`_collected`), which functions
a callee denotes, the transform's static parameters, and how a node sits in its tree.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .apis import lookup


@dataclass(frozen=True)
class JitContext:
    """Where a function runs under a jit transform (decorated, wrapped or called), and which parameters stay static."""
    function: Any  # a def or a lambda of either tree
    transform: Any  # transforms.Transform
    how: str  # "decorator" | "wrapped" | "called"
    static_params: frozenset[str] | None  # None: cannot be read statically (or inherited from a caller)
    caller: "JitContext | None" = None
    application: Any = None  # "wrapped": the call that applies the transform (`jax.jit(f)`)
    remote: object = None  # a RemoteTrace (rewriter/analysis/facts.py): traced from another module, as it says

    @property
    def root(self) -> "JitContext":
        """The directly jitted function whose trace this helper runs in (itself for a direct context)."""
        context = self
        while context.caller is not None:
            context = context.caller
        return context

    @property
    def framework(self) -> str:
        return self.transform.framework

    @property
    def name(self) -> str:
        name = getattr(self.function, "name", None)  # (libcst's def has a Name there, ast's a str; a lambda none)
        return "<lambda>" if name is None else name if isinstance(name, str) else name.value


class JitContexts:
    """The contexts of one module (`contexts`, in order) and what is asked of them."""

    def __init__(self, resolver, project=None, open_module: str = "") -> None:
        self.resolver = resolver
        self.project = project  # FileFacts from the project index, or None
        # Why the module's public functions may have callers outside the project ("": none; project/world.py)
        self.open_module = open_module
        self._collected = self._collect()
        self.contexts: list[JitContext] = []
        self._by_function: dict[int, JitContext] = {}
        self._jitted_defs: dict[int, Any] = {}
        for fn, transform in self._collected.decorated:
            self._add(JitContext(fn, transform, "decorator", self._static_params(transform, fn)))
            self._jitted_defs[id(fn)] = transform
        for app in self._collected.applications:
            for fn in self.functions_denoted(app.function):
                self._add(JitContext(fn, app.transform, "wrapped", self._static_params(app.transform, fn), application=app.call))
            for fn in self.method_denoted(app.function):  # `jax.jit(self.step)`: bound, its argnums shift
                self._add(JitContext(fn, app.transform, "wrapped", None, application=app.call))
        self._add_remote()
        self._add_called_helpers()

    # -- what the reading says of its tree ---------------------------------------------------------
    def _collect(self):
        """The decorated defs with their transforms, the jit applications, and the calls per function."""
        raise NotImplementedError

    def _static_params(self, transform, fn) -> frozenset[str] | None:
        raise NotImplementedError

    def functions_denoted(self, expr) -> list:
        raise NotImplementedError

    def method_denoted(self, expr) -> list:
        raise NotImplementedError

    def _module_function(self, name: str):
        """The def a project fact names (`f`, or `make.f` nested in it), or None."""
        raise NotImplementedError

    def _transform_named(self, api, name: str):
        """A Transform of `api`, spelled `name` (for a function another module traces)."""
        raise NotImplementedError

    def _callee(self, expr) -> bool:
        """`expr` is a Name or an attribute chain (the callees whose functions are followed)."""
        raise NotImplementedError

    def _function(self, node) -> bool:
        """`node` is a def or a lambda."""
        raise NotImplementedError

    # -- building ------------------------------------------------------------------------------
    def _add_remote(self) -> None:
        """Functions of this module that another module traces (rewriter/project/index.py): applied a jit
        transform there (`jax.jit(physics.forward)`), or called from a traced function there."""
        if not self.project:
            return
        for trace in self.project.traces:
            fn = self._module_function(trace.function)
            api = lookup(trace.api)
            if fn is None or api is None:
                continue
            transform = self._transform_named(api, trace.api.rsplit(".", 1)[-1])
            if trace.how == "wrapped":
                static = frozenset(trace.static) if trace.static is not None else None
                self._add(JitContext(fn, transform, "wrapped", static, remote=trace))
            elif id(fn) not in self._by_function:
                self._add(JitContext(fn, transform, "called", None, remote=trace))

    def _add(self, context: JitContext) -> None:
        if id(context.function) not in self._by_function:
            self._by_function[id(context.function)] = context
            self.contexts.append(context)

    def _add_called_helpers(self) -> None:
        work = list(self.contexts)
        while work:
            context = work.pop()
            for call in self._collected.calls_of(context.function):
                if not self._callee(call.func):
                    continue
                for fn in self.functions_denoted(call.func) or self.method_denoted(call.func):
                    if id(fn) not in self._by_function:
                        helper = JitContext(fn, context.transform, "called", None, context)
                        self._add(helper)
                        work.append(helper)

    # -- queries ---------------------------------------------------------------------------
    def application_of(self, fn):
        """The jit application that wraps `fn` (`step = math.jit_compile(f)`), if any."""
        for app in self._collected.applications:
            if any(f is fn for f in self.functions_denoted(app.function)):
                return app
        return None

    def runs_only_traced(self, node) -> bool:
        """`node` is in a traced function that never runs eagerly: not one that is traced only because traced
        callers elsewhere in the project call it, while it is public in a package others install, whose
        callers outside the project may run it eagerly (`eagerly_callable`)."""
        context = self.enclosing_context(node)
        return context is not None and not self.eagerly_callable(context)

    def jitted_elsewhere(self, context: JitContext) -> str:
        """Why the body of the function of `context` is not rewritten ("" when it may be): another module
        applies a jit to it (`step = jax.jit(physics.limiter)`). That jit wraps its own callable; the def
        stays what every other caller runs eagerly."""
        root = context.root
        remote = root.remote
        if remote is None or remote.how != "wrapped":  # type: ignore[attr-defined]
            return ""
        return (f"`{root.name}` is jitted in {remote.where}, not where it is defined; its other callers may "  # type: ignore[attr-defined]
                f"run it eagerly, and a rewrite of its body changes it for them too")

    def eagerly_callable(self, context: JitContext) -> str:
        """Why the function of `context` may run eagerly although the project traces it ("" if it may not):
        its trace comes from callers in other modules, and it is public in an installable package."""
        root = context.root
        remote = root.remote
        if remote is None or remote.how != "called" or not self.open_module or root.name.startswith("_"):  # type: ignore[attr-defined]
            return ""
        return f"`{root.name}` is public: {self.open_module}, so callers outside the project may run it eagerly"

    def context_of(self, fn) -> JitContext | None:
        return self._by_function.get(id(fn))

    def enclosing_context(self, node, direct_only: bool = False) -> JitContext | None:
        """The traced function whose body contains `node` (nearest first), if any."""
        current = self.resolver.parent(node)
        while current is not None:
            if self._function(current):
                context = self.context_of(current)
                if context is not None and (not direct_only or context.how != "called"):
                    return context
            current = self.resolver.parent(current)
        return None
