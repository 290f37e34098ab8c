"""PML304 map-of-jit."""
from __future__ import annotations

import ast
import io
import tokenize

from rewriter.lazy_libcst import cst

from rewriter.analysis.apis import Kind, canonical
from rewriter.analysis.ast_jit import match_application, spelled_application
from rewriter.ast_rule import AstRule, PlannedFix
from rewriter.codemod import Replace
from rewriter.findings import Safety
from rewriter.rule import Example, Unchanged, dedented

from ._ast_hazards import enclosing_functions, spelled_jits
from ._shared import as_atom

MAP = frozenset({Kind.MAP})
_MAP_OPTIONS = {"dims", "range", "unwrap_scalars", "expand_results", "simplify", "map_name"}


class MapOfJit(AstRule):
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
        if not (syntax.spells(Kind.MAP) and syntax.spells(Kind.JIT)):
            return False
        facts = syntax.facts
        return facts is not None and any(facts.may_be_jitted(call.args[0]) or facts.may_be_traced(functions)
                                         for call, functions in facts.maps)

    def check(self) -> None:
        file = self.file
        names, spelled = file.names, spelled_jits(file)
        calls = sorted(file.nodes(ast.Call), key=lambda n: (n.lineno, n.col_offset))
        for node in calls:
            first = spelled_application(names, node, MAP)
            if first is not None and any(k.arg == "dims" for k in node.keywords) and (
                    spelled.may_be_jitted(first) or spelled.may_be_traced(enclosing_functions(names, node))):
                self._check(node)

    def _check(self, node: ast.Call) -> None:
        file = self.file
        names, jit = file.names, file.jit
        app = match_application(names, node, (Kind.MAP,))
        if app is None:
            return
        dims = app.transform.keyword("dims")
        if dims is None or not self._is_batch(dims):
            return
        jitted = jit.jitted_value(app.function)
        context = jit.enclosing_context(node, direct_only=True)
        if jitted is not None:
            message = "`math.map` of a jitted function over batch dims calls it once per slice"
        elif context is not None and context.framework == "phiml":
            message = (f"`math.map` over batch dims inside `{context.name}`, traced by `{context.transform.api.name}`, "
                       "unrolls one copy per slice")
        else:
            return
        by_hand = "call the function on the batched tensor, if it treats batch dims element-wise"
        options = {k.arg for k in app.transform.keywords} & _MAP_OPTIONS
        if options - {"dims"}:
            self.report(node, message, hint=by_hand, note=f"not fixed: `{', '.join(sorted(options - {'dims'}))}` given")
            return
        kept = [*app.transform.extra_positional, *(k for k in app.transform.keywords if k.arg not in _MAP_OPTIONS)]
        if _comments_dropped(file.python, node, kept):
            self.report(node, message, hint=by_hand, note="not fixed: comments in the arguments it would drop")
            return
        self.report(node, message, note="unsafe: the same result only if the function treats every batch dimension element-wise",
                    fix=PlannedFix("call the function on the batched tensor", (node,), _write_call))

    def _is_batch(self, dims: ast.expr) -> bool:
        target = dims.func if isinstance(dims, ast.Call) else dims
        if not isinstance(target, (ast.Name, ast.Attribute)):
            return False
        found = self.file.names.qualified_names(target)  # every binding must be PhiML's `batch`: provably batch dims
        return bool(found) and all(canonical(n) == "phiml.math.batch" for n in found)


def _comments_dropped(python, call: ast.Call, kept: list) -> bool:
    """A comment would go with the arguments the fix drops: in a dropped argument, with its comma and what
    follows it up to the next argument, or at the comma after the last one kept (libcst keeps comments in
    an argument's comma)."""
    text = python.text(call)
    if "#" not in text:
        return False
    comments = []
    base_line, base_column = call.lineno, python._column(call.lineno, call.col_offset)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                row, column = token.start
                comments.append((base_line + row - 1, column + (base_column if row == 1 else 0)))
    except (tokenize.TokenError, SyntaxError):
        return True  # (not read: not rewritten)
    if not comments:
        return False
    end_line = call.end_lineno or call.lineno
    closing = (end_line, python._column(end_line, call.end_col_offset or 0) - 1)  # the `)`
    written = sorted([*call.args, *call.keywords], key=lambda a: (a.lineno, a.col_offset))
    starts = [(a.lineno, python._column(a.lineno, a.col_offset)) for a in written]
    kept_ids = {id(a) for a in kept}
    for i, argument in enumerate(written):
        following = starts[i + 1] if i + 1 < len(written) else closing
        if id(argument) not in kept_ids:
            if any(starts[i] <= c < following for c in comments):
                return True
        elif argument is kept[-1]:  # its comma, with what follows it, is dropped when it becomes the last
            value_end = (argument.end_lineno, python._column(argument.end_lineno, argument.end_col_offset))
            between = python.text_between(argument.end_lineno, argument.end_col_offset, *_offsets(python, following))
            code = "".join(line.split("#", 1)[0] for line in between.split("\n"))  # (no string can be here)
            if "," in code and any(value_end <= c < following for c in comments):
                return True
    return False


def _offsets(python, place: tuple[int, int]) -> tuple[int, int]:
    """A (line, character column) place as `ast`'s (line, byte offset)."""
    line, column = place
    return line, len(python.lines[line - 1][:column].encode("utf-8"))


def _write_call(context, node: cst.CSTNode) -> list[Replace] | None:
    """`math.map(f, x, dims=batch)` -> `f(x)`: the arguments after the function and the keywords that are not
    the map's own, as written."""
    if not isinstance(node, cst.Call):
        return None
    positional = [a for a in node.args if a.keyword is None and not a.star]
    if not positional:
        return None
    function = positional[0].value
    kept = [*positional[1:], *(a for a in node.args if a.keyword is not None and a.keyword.value not in _MAP_OPTIONS)]
    return [Replace(node, cst.Call(as_atom(function), args=_strip_trailing_comma(kept)))]


def _strip_trailing_comma(args: list[cst.Arg]) -> list[cst.Arg]:
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args
