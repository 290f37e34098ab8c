"""Writing a lambda or nested def lifted to module level (PML101, PML102) on libcst: the new def, and the
body it leaves (_ast_lift.py decides what is lifted, on `ast`)."""
from __future__ import annotations

import functools
from dataclasses import dataclass

from rewriter.lazy_libcst import cst

from rewriter.analysis.names import NameResolver


@dataclass(frozen=True)
class Temporary:
    """A function created on every run of its enclosing function, as found at a use site."""

    function: cst.Lambda | cst.FunctionDef
    label: str  # "a lambda", "the nested def `op`"
    base_name: str  # what the lifted def is called, before collision avoidance
    remove: cst.BaseStatement | None = None  # the statement defining it, which the lift deletes
    decorators: tuple[cst.Decorator, ...] = ()  # decorators for the lifted def


# Transforms that do their work when the def runs: at module level they would run at import.
EAGER_TRANSFORMS = frozenset({"torch.jit.script", "torch.jit.trace"})


def is_called(resolver: NameResolver, node: cst.CSTNode) -> bool:
    """`node(...)`: the node is the callee of its parent."""
    parent = resolver.parent(node)
    return isinstance(parent, cst.Call) and parent.func is node


@functools.cache
def comma() -> cst.Comma:
    """`, `: the comma a fix puts between the arguments it writes."""
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


@functools.cache
def no_space_equal() -> cst.AssignEqual:
    """The `=` of a keyword argument, PEP 8's way."""
    return cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))


def forget_traces() -> cst.Arg:
    """`forget_traces=True`, the argument the fixes that stop re-tracing add to `jit_compile`."""
    return cst.Arg(cst.Name("True"), keyword=cst.Name("forget_traces"), equal=no_space_equal())


def lifted_def(temporary: Temporary, name: str, captured: tuple[str, ...], spacing: cst.BaseStatement,
               imports: tuple[cst.SimpleStatementLine, ...] = (), after_first: bool = False) -> cst.FunctionDef:
    """The module-level def: the function's own parameters, then one per captured value; the
    comments above the statement it is deleted from move with it. `imports` made inside the
    enclosing function that it reads are repeated at the top of its body (captures.Captures).

    `after_first`: the captured values come right after the first parameter instead, for APIs that
    call `f(x, *args, **kwargs)`: the values passed first keep the function's own further
    parameters bound as the call site binds them (positionally, by keyword, or to their defaults)."""
    fn = temporary.function
    extra = [cst.Param(cst.Name(c)) for c in captured]
    if after_first and fn.params.posonly_params:
        first, *rest = fn.params.posonly_params
        params = fn.params.with_changes(posonly_params=[first, *extra, *rest])
    elif after_first and fn.params.params:
        first, *rest = fn.params.params
        params = fn.params.with_changes(params=[first, *extra, *rest])
    else:
        params = fn.params.with_changes(params=[*fn.params.params, *extra])
    if isinstance(params.star_arg, cst.ParamStar):
        params = params.with_changes(star_arg=cst.MaybeSentinel.DEFAULT)
    params = _comma_free(params)
    blank = []
    for line in getattr(spacing, "leading_lines", ()):
        if line.comment is not None:
            break
        blank.append(line)
    blank += leading_comments(temporary.remove)
    if isinstance(fn, cst.Lambda):
        body = cst.IndentedBlock([*imports, cst.SimpleStatementLine([cst.Return(fn.body.with_changes(lpar=[], rpar=[])
                                                                                if _safe_unparen(fn.body) else fn.body)])])
        return cst.FunctionDef(cst.Name(name), params, body, decorators=list(temporary.decorators), leading_lines=blank)
    if imports:
        fn = fn.with_changes(body=_with_imports(fn.body, imports))
    kept = [d for d in fn.decorators]
    extra_decorators = [d for d in temporary.decorators if all(d is not k for k in kept)]
    decorators = [*extra_decorators, *kept]
    if decorators:
        decorators[0] = decorators[0].with_changes(leading_lines=blank)
    return fn.with_changes(name=cst.Name(name), params=params, decorators=decorators,
                           leading_lines=[] if decorators else blank)


def _with_imports(body: cst.BaseSuite, imports) -> cst.BaseSuite:
    """The body with `imports` first (after a docstring)."""
    if not isinstance(body, cst.IndentedBlock):
        body = cst.IndentedBlock([cst.SimpleStatementLine(body.body)])
    statements = list(body.body)
    first = statements[0] if statements else None
    docstring = isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and isinstance(first.body[0], cst.Expr) \
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    at = 1 if docstring else 0
    return body.with_changes(body=[*statements[:at], *imports, *statements[at:]])


def _safe_unparen(expr: cst.BaseExpression) -> bool:
    """Parentheses around a lambda body are only needed inside the lambda's expression."""
    return bool(expr.lpar) and not isinstance(expr, (cst.Tuple, cst.GeneratorExp, cst.Yield))


def _comma_free(params: cst.Parameters) -> cst.Parameters:
    """Parameters with their separators recomputed (a lambda's `x, y` may lack spaces)."""
    def clean(p: cst.Param) -> cst.Param:
        return p.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_param=cst.SimpleWhitespace(""))

    return params.with_changes(posonly_params=[clean(p) for p in params.posonly_params],
                               params=[clean(p) for p in params.params],
                               kwonly_params=[clean(p) for p in params.kwonly_params])


@functools.cache
def _rewrite() -> type:
    """The class below, made once libcst is imported (lazy_libcst)."""

    class Rewrite(cst.CSTTransformer):
        """Replace nodes (by identity in the original tree) and delete statements, closing their gaps."""

        def __init__(self, replacements: dict, removals: list[cst.BaseStatement]) -> None:
            super().__init__()
            self.replacements = replacements
            self.removals = {id(r) for r in removals}

        def on_leave(self, original_node, updated_node):
            if id(original_node) in self.removals:
                return cst.RemovalSentinel.REMOVE
            new = self.replacements.get(id(original_node), updated_node)
            if callable(new) and not isinstance(new, cst.CSTNode):  # built from the updated node (nested edits)
                new = new(updated_node)
            if self.removals and isinstance(original_node, (cst.IndentedBlock, cst.Module)):
                # the statement after a deleted run takes its place, and the blank lines before the run
                kept, gap, out = iter(new.body), None, []
                for statement in original_node.body:
                    if id(statement) in self.removals:
                        if gap is None:
                            gap = [line for line in statement.leading_lines if line.comment is None]
                        continue
                    survivor = next(kept)
                    if gap is not None:
                        survivor = survivor.with_changes(leading_lines=gap + [
                            line for line in survivor.leading_lines if line.comment is not None])
                        gap = None
                    out.append(survivor)
                new = new.with_changes(body=out)
            return new

    return Rewrite


def rewrite_function_body(fn: cst.FunctionDef, replacements: dict,
                          remove: cst.BaseStatement | list[cst.BaseStatement] | None) -> cst.BaseSuite:
    """`fn`'s body with `replacements` applied and `remove` deleted (one edit covers them all).

    `replacements`: id of an original node -> its new node, or a function of the updated node
    (for edits that must keep what other replacements did inside it)."""
    removals = remove if isinstance(remove, list) else [remove] if remove is not None else []
    return fn.body.visit(_rewrite()(replacements, removals))


def leading_comments(statement: cst.BaseStatement | None) -> list[cst.EmptyLine]:
    """The comment lines right above a statement that is lifted: they move with it."""
    if statement is None:
        return []
    return [line for line in statement.leading_lines if line.comment is not None]


def import_line(node: cst.Import | cst.ImportFrom, name: str) -> cst.SimpleStatementLine | None:
    """The import statement `node` with only its alias that binds `name` (None: not exactly one does): an
    import the lifted def repeats in its own body (ast_captures.LocalImport)."""
    if isinstance(node.names, cst.ImportStar):
        return None
    aliases = [a for a in node.names if (a.evaluated_alias or (a.evaluated_name.split(".")[0])) == name]
    if len(aliases) != 1:
        return None
    alias = aliases[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return cst.SimpleStatementLine([node.with_changes(names=[alias], **({"lpar": None, "rpar": None}
                                                                           if isinstance(node, cst.ImportFrom) else {}))])
