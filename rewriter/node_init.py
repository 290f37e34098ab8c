"""libcst's node constructors, cheaper: a parse spends a sixth of its time in them.

Every libcst node class is a frozen dataclass with slots. The `__init__` dataclasses write for it sets
each field through `object.__setattr__` (a global, an attribute and a call per field), then calls
`__post_init__`, which validates the node. `install` gives each class an `__init__` with the same
parameters and defaults that sets the same fields through the slots' own setters, and validates the
node as `__post_init__` does, unless a parse is building it (`unvalidated`: the parser's output is
valid by construction; cst_tree.parse_module). Nodes built anywhere else (the rules' fixes) are
validated as always. A class whose constructor is not exactly its fields' (another `__post_init__`,
keyword-only or non-init fields, a field without a slot) keeps its own.

Parsing the 2.9 MB of files the whole benchmark corpus processes (alone, one process): 3.40-3.46 ->
3.04-3.13 CPU s. The flag is process-wide, as the `__post_init__` swap it stands beside is: a node another
thread builds during a parse is not validated either.
"""
from __future__ import annotations

import contextlib
import dataclasses
import inspect
import types
from typing import Callable, Iterable, Iterator

import libcst as cst

# The globals of every `__init__` made here: each class's setters, defaults and factories under names
# of its own, and whether nodes are validated (`unvalidated`).
_NAMESPACE: dict = {"_validating": True}
installed: dict[type, object] = {}  # each class given one -> the `__init__` it had
_tried: list[bool] = []  # install ran (whatever it found: a libcst it reads none of is not read again)


def install(classes: Callable[[], Iterable[type]]) -> None:
    """Give each of the libcst node classes `classes()` names its cheaper `__init__`, once per process:
    every call after the first returns at once (a parse makes one)."""
    if _tried:
        return
    _tried.append(True)
    for index, cls in enumerate(sorted(classes(), key=lambda c: c.__qualname__)):
        init = _init_of(cls, f"_{index}")
        if init is not None:
            installed[cls] = cls.__init__
            cls.__init__ = init


@contextlib.contextmanager
def unvalidated() -> Iterator[None]:
    """Nodes the installed constructors build meanwhile are not validated (a parse's)."""
    _NAMESPACE["_validating"] = False
    try:
        yield
    finally:
        _NAMESPACE["_validating"] = True


def _init_of(cls: type, prefix: str):
    """The `__init__` for `cls`, or None where the dataclass's is not exactly its fields'."""
    if not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen \
            or cls.__post_init__ is not cst.CSTNode.__post_init__ or "__init__" not in cls.__dict__:
        return None
    fields = dataclasses.fields(cls)
    try:
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return None
    if [p.name for p in parameters] != [f.name for f in fields] \
            or any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in parameters) \
            or any(not f.init or f.kw_only is True for f in fields):
        return None
    signature, body = [], []
    for i, (field, parameter) in enumerate(zip(fields, parameters)):
        setter = _slot(cls, field.name)
        if setter is None:
            return None
        name = field.name
        _NAMESPACE[f"{prefix}_set{i}"] = setter.__set__
        if field.default_factory is not dataclasses.MISSING:
            _NAMESPACE[f"{prefix}_factory{i}"] = field.default_factory
            _NAMESPACE[f"{prefix}_missing{i}"] = parameter.default  # (dataclasses' own "no argument" marker)
            signature.append(f"{name}={prefix}_missing{i}")
            body.append(f"    {prefix}_set{i}(self, {prefix}_factory{i}() if {name} is {prefix}_missing{i} else {name})")
        elif field.default is not dataclasses.MISSING:
            _NAMESPACE[f"{prefix}_default{i}"] = field.default
            signature.append(f"{name}={prefix}_default{i}")
            body.append(f"    {prefix}_set{i}(self, {name})")
        else:
            signature.append(name)
            body.append(f"    {prefix}_set{i}(self, {name})")
    source = (f"def __init__(self, {', '.join(signature)}):\n" + "\n".join(body)
              + "\n    if _validating:\n        self._validate()\n")
    exec(source, _NAMESPACE)  # noqa: S102 (code made here from the class's field names)
    init = _NAMESPACE.pop("__init__")
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _slot(cls: type, name: str):
    """The slot descriptor that holds the field `name` of `cls` (None: it has none)."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if found is not None:
            return found if type(found) is types.MemberDescriptorType else None
    return None
