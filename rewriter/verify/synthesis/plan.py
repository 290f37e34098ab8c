"""What to draw for one changed function: the signatures its sources describe, or why there are none.

A signature maps each parameter to a description (`values`), or leaves it out to keep its default.
Calls recorded by earlier runs (`store`) come first: each is an explicit example, tried as it was,
and its dtypes and shapes a signature. Call sites come next: each complete one is a signature, and one whose arguments are all literal is
also an explicit example. Annotations fill what a call site leaves unknown, or describe the whole
call when there is no call site. Array axes carry a symbol: axes of one size at a call site share
a size when drawn, so the shapes stay compatible (`x + y`) while the sizes vary.
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field

from . import annotations as _annotations, testcases
from .callsites import call_sites


@dataclass
class Plan:
    """How to draw inputs for one function: the signatures and examples its call sites and annotations give."""
    name: str
    params: list[str] = field(default_factory=list)
    signatures: list[dict[str, dict]] = field(default_factory=list)
    examples: list[dict[str, dict]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # where the signatures came from: "recorded calls", "call sites", "annotations"
    notes: list[str] = field(default_factory=list)  # what a call site's description rests on (a loop's first call)
    reason: str = ""  # not synthesizable: why
    test: str = ""  # a test that needs no inputs: "unittest" | "pytest" (testcases.py)
    positional: list[str] = field(default_factory=list)  # the parameters a call may pass by position, in order

    def to_dict(self) -> dict:
        return self.__dict__.copy()


def _function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    found = None
    for stmt in tree.body:  # the last definition is the one the module keeps
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            found = stmt
    return found


def _with_symbols(desc: dict) -> dict:
    if desc["kind"] != "array" or "symbols" in desc:
        return desc
    return {**desc, "symbols": [None] * len(desc["shape"])}


def _symbolic(desc: dict) -> dict:
    """Axes named by annotation keep their name; the others are named by their size (`#3`), or fixed
    (`=2`) where PhiML item names give the size."""
    desc = _with_symbols(desc)
    if desc["kind"] != "array":
        return desc
    items = desc.get("items") or [None] * len(desc["shape"])
    return {**desc, "symbols": [s or (f"={n}" if it else f"#{n}") for s, n, it in zip(desc["symbols"], desc["shape"], items)]}


def _shape_only(desc: dict) -> dict:
    return {k: v for k, v in desc.items() if k not in ("value", "data", "stored", "recorded", "items")}


def _key(signature: dict[str, dict]) -> str:
    return json.dumps({p: _shape_only(d) for p, d in signature.items()}, sort_keys=True)


def plan(source: str, name: str, project_sources: list[str], recorded: list[dict[str, dict]] = (),
         stale: bool = False) -> Plan:
    """`source`: the original module; `project_sources`: the modules whose calls are read (it included);
    `recorded`: calls an earlier run recorded of this very definition; `stale`: there were some, of
    an earlier definition (said where nothing else describes the arguments)."""
    result = Plan(name)
    tree = ast.parse(source)
    result.test, result.reason = testcases.kind(tree, name)
    if result.test or result.reason:
        result.signatures = [{}] if result.test else []
        return result
    if "." in name:
        result.reason = "a method or nested function: synthesis calls module-level functions only"
        return result
    function = _function(tree, name)
    if function is None:
        result.reason = "not a function defined at module level (an assignment)"
        return result
    if isinstance(function, ast.AsyncFunctionDef):
        result.reason = "an async function"
        return result
    args = function.args
    positional = args.posonlyargs + args.args
    params = [a.arg for a in positional + args.kwonlyargs]
    result.positional = [a.arg for a in positional]
    defaults = {a.arg for a in positional[len(positional) - len(args.defaults):]} if args.defaults else set()
    defaults |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    annotated = {a.arg: _annotations.describe(a.annotation) for a in positional + args.kwonlyargs}
    result.params = params
    missing: dict[str, str] = {}

    def complete(given: dict[str, dict | None]) -> dict[str, dict] | None:
        signature = {}
        for p in params:
            desc = given.get(p) or annotated.get(p)
            if desc is None and p in given:
                missing.setdefault(p, getattr(given, "why", {}).get(p) or "an argument whose source does not say its type or shape")
            if desc is None and p not in defaults:
                missing.setdefault(p, "no literal call site and no annotation")
                return None
            if desc is not None:
                signature[p] = _symbolic(desc)
        return signature

    seen = set()
    for call in recorded:
        if not set(call) <= set(params) or any(p not in call and p not in defaults for p in params):
            continue
        example = {p: {**call[p], "recorded": True} for p in params if p in call}
        signature = {p: _symbolic(_shape_only(d)) for p, d in example.items()}
        result.examples.append(example)
        if _key(signature) not in seen:
            seen.add(_key(signature))
            result.signatures.append(signature)
    if result.signatures:
        result.sources.append("recorded calls")
    from_sites = len(result.signatures)
    sites = call_sites(project_sources, name, params)
    for site in sites:
        signature = complete(site)
        if signature is None:
            continue
        if _key(signature) not in seen:
            seen.add(_key(signature))
            result.signatures.append(signature)
            result.notes += [n for n in site.notes if n not in result.notes]
        if all(d.get("value") is not None for d in signature.values()) and \
                all(p in site or p not in annotated or annotated[p] is None for p in signature):
            result.examples.append(signature)
    if len(result.signatures) > from_sites:
        result.sources.append("call sites")
    if not result.signatures or any(annotated[p] for p in params):
        signature = complete({})
        if signature is not None and (signature or not params):
            if _key(signature) not in seen:
                result.signatures.append(signature)
                result.sources.append("annotations")
    if not result.signatures:
        result.reason = "; ".join(f"argument `{p}` of unknown type ({why})" for p, why in missing.items()) or \
            "no call site or annotation describes its arguments"
        if stale:
            result.reason += "; the calls recorded by an earlier run are of an earlier version of it"
    return result
