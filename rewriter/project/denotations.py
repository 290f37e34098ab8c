"""What a name of the project denotes, as the index resolves it (index.py) and propagates it (propagation.py)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fn:
    """A def of the project by module and name: how the index knows functions across modules."""
    module: str
    name: str  # `f`, or `make.f` for the def a factory returns

    def key(self) -> tuple[str, str]:
        return self.module, self.name


@dataclass(frozen=True)
class Jitted:
    """A jit function: a decorated def, or a module-level binding of a jit application."""

    function: Fn | None  # the traced def, when it is one of the project
    api: str
    framework: str
    static: tuple[str, ...] | None  # parameter names kept static (None: unreadable)
    module: str  # where the wrapper is bound (or the def is)
    name: str
    line: int
    by_binding: bool  # `step = jax.jit(f)` (the def may be elsewhere) rather than a decorator
