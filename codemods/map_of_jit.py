"""PML304 map-of-jit."""
from __future__ import annotations

import libcst as cst

from rewriter.analysis.apis import Kind, canonical
from rewriter.analysis.syntax import spelled_application
from rewriter.analysis.transforms import match_application
from rewriter.codemod import Codemod, Example, Replace, Unchanged, dedented
from rewriter.cst_tree import children
from rewriter.findings import Safety

from ._shared import as_atom

MAP = frozenset({Kind.MAP})
_MAP_OPTIONS = {"dims", "range", "unwrap_scalars", "expand_results", "simplify", "map_name"}


class MapOfJit(Codemod):
    """PhiML vectorises every operation over batch dimensions, so a jitted function can take the
    batched tensor directly. `math.map(jit_f, x, dims=batch)` instead loops in Python over every
    batch slice and calls the compiled function once per slice, many times slower than one call on the
    batch. The mirror image, `math.map` over batch dimensions *inside* a jit-compiled function,
    unrolls the loop into the trace and makes the first call slow (figures: docs/benchmarks.md, "What the hazards cost"). Both are PhiML's face of "jit outermost, and prefer vectorised code".

    The fix calls the function on the batched arguments: `math.map(jit_f, x, dims=batch)` becomes
    `jit_f(x)`. Only maps whose `dims` are provably batch dimensions (`batch`, `batch('b')`,
    `batch(x)`) are reported; maps over spatial or channel dimensions are a different computation.
    """

    CODE = "PML304"
    NAME = "map-of-jit"
    SUMMARY = "`math.map` of a jitted function over batch dims: call it on the batched tensor instead"
    SAFETY = Safety.UNSAFE
    CHANGES_STRUCTURE = ("map", "jit")
    FIX_SAFETY = (
        "Unsafe: the result is the same only if the function is batch-agnostic, i.e. treats every "
        "batch dimension element-wise (true of PhiML code that does not reduce over, index or branch on "
        "a batch dimension). Maps with other options (`range`, `expand_results`, `simplify`, "
        "`unwrap_scalars`, `map_name`) are reported without a fix."
    )
    EXAMPLES = (
        Example(
            dedented("""
                @math.jit_compile
                def step(x):
                    return math.laplace(x)

                y = math.map(step, x, dims=batch)
            """),
            dedented("""
                @math.jit_compile
                def step(x):
                    return math.laplace(x)

                y = step(x)
            """),
        ),
        Example(
            dedented("""
                @math.jit_compile
                def simulate(x):
                    return math.map(step, x, dims=batch('examples'))
            """),
            dedented("""
                @math.jit_compile
                def simulate(x):
                    return step(x)
            """),
            note="map unrolled inside jit",
        ),
        Unchanged(dedented("""
            from phiml.math import spatial

            @math.jit_compile
            def step(x):
                return math.laplace(x)

            y = math.map(step, x, dims=spatial)
        """), "a map over spatial dims: another computation"),
        Unchanged(dedented("""
            def step(x):
                return math.laplace(x)

            y = math.map(step, x, dims=batch)
        """), "a map of a plain function, outside jit"),
    )
    READS_FACTS = True
    TRIGGERS = (("map", "jit"),)

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A `math.map(..., dims=...)` of a function that may be jitted, or inside a traced function."""
        facts = syntax.facts
        return facts is not None and any(facts.may_be_jitted(call.args[0]) or facts.may_be_traced(functions)
                                         for call, functions in facts.maps)

    def __init__(self, file) -> None:
        super().__init__(file)
        self._deferred: list = []

    def visit_Call(self, node: cst.Call) -> None:
        first = spelled_application(self.file.analysis.names, node, MAP)
        if first is not None and any(a.keyword is not None and a.keyword.value == "dims" for a in node.args):
            self._deferred.append((node, first, tuple(self.file.syntax.functions)))

    def leave_Module(self, original_node: cst.Module) -> None:
        syntax = self.file.syntax
        for node, first, functions in self._deferred:
            if syntax.may_be_jitted(first) or syntax.may_be_traced(functions):
                self._check(node)

    def _check(self, node: cst.Call) -> None:
        analysis = self.file.analysis
        app = match_application(analysis.names, node, (Kind.MAP,))
        if app is None:
            return
        dims = app.transform.keyword("dims")
        if dims is None or not self._is_batch(dims):
            return
        jitted = analysis.jit.jitted_value(app.function)
        context = analysis.jit.enclosing_context(node, direct_only=True)
        if jitted is not None:
            message = "`math.map` of a jitted function over batch dims calls it once per slice"
        elif context is not None and context.framework == "phiml":
            message = (f"`math.map` over batch dims inside `{context.name}`, traced by `{context.transform.api.name}`, "
                       "unrolls one copy per slice")
        else:
            return
        by_hand = "call the function on the batched tensor, if it treats batch dims element-wise"
        options = {a.keyword.value for a in app.transform.keywords} & _MAP_OPTIONS
        if options - {"dims"}:
            self.report(node, message, hint=by_hand, note=f"not fixed: `{', '.join(sorted(options - {'dims'}))}` given")
            return
        args = [a for a in app.transform.extra_positional]
        kwargs = [a for a in app.transform.keywords if a.keyword.value not in _MAP_OPTIONS]
        kept = [*args, *kwargs]
        dropped = [a for a in node.args if not any(a is k for k in kept)]
        if any(_has_comment(a) for a in dropped) or kept and _has_comment(kept[-1].comma):
            self.report(node, message, hint=by_hand, note="not fixed: comments in the arguments it would drop")
            return
        call = cst.Call(as_atom(app.function), args=_strip_trailing_comma([*args, *kwargs]))
        self.report(node, message, edits=[Replace(node, call)], fix_description="call the function on the batched tensor",
                    note="unsafe: the same result only if the function treats every batch dimension element-wise")

    def _is_batch(self, dims: cst.BaseExpression) -> bool:
        names = self.file.analysis.names
        target = dims.func if isinstance(dims, cst.Call) else dims
        if not isinstance(target, (cst.Name, cst.Attribute)):
            return False
        found = names.qualified_names(target)  # every binding must be PhiML's `batch`: provably batch dims
        return bool(found) and all(canonical(n) == "phiml.math.batch" for n in found)


def _has_comment(node) -> bool:
    if not isinstance(node, cst.CSTNode):
        return False
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Comment):
            return True
        stack.extend(children(current))
    return False


def _strip_trailing_comma(args: list[cst.Arg]) -> list[cst.Arg]:
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args
