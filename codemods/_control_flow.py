"""What the control-flow codemods (PML201-PML204) share: which traced functions to rewrite and in
which framework's primitives, and what a finding says per framework."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from rewriter.lazy_libcst import cst

from rewriter.analysis import compilers
from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_names import in_source_order, own_nodes_in_order
from rewriter.analysis.trace_values import FunctionFlow, Trace, Value
from rewriter.emit import Spelling
from rewriter.findings import Severity

if TYPE_CHECKING:
    from rewriter.analysis.ast_module import AstModule

_LIBRARIES = ("phiml.math.", "jax.numpy.", "jax.lax.", "jax.nn.", "torch.", "tensorflow.", "numpy.")

def traced_condition_gate(syntax) -> bool:
    """PML201-PML203's gate: a condition or trip count may derive from a tracer (ast_traced) in a function
    a compiler that fails on Python control flow may trace (`rewritable`), or in a helper it reaches."""
    if not syntax.spells(Kind.JIT):
        return False
    facts = syntax.facts
    return facts is not None and facts.traced_test_under(_fails_on_control_flow)


def _fails_on_control_flow(compiler: compilers.Compiler) -> bool:
    return compiler.fails_on_control_flow


def consequence(flow: FunctionFlow, what: str) -> str:
    """What a Python `if`/loop on a tracer does under this flow's compiler, in a few words (measured on
    every backend: rewriter/analysis/compilers.py); `what` is "branch" or "trip count"."""
    return compilers.of(flow.context.transform).consequence.format(what=what)


def rewritable(flow: FunctionFlow) -> bool:
    """Is Python control flow on tracers a problem in this context? Not under autograph
    (`tf.function` converts it), `torch.compile` (graph breaks) or `torch.jit.script` (compiles it)."""
    return compilers.of(flow.context.transform).fails_on_control_flow


def _deferred(is_config, value: Value) -> bool:
    if value.staged:
        return False  # computed by a jax operation: still a tracer once its parameters are static
    return bool(value.sources) and all(is_config(source) for source in value.sources)


def block_statements(node) -> list:
    body = node.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else [cst.SimpleStatementLine(body.body)] \
        if isinstance(body, cst.SimpleStatementSuite) else list(body)


# Why a condition that goes through `int(x)` / `x.item()` of an array is reported, not rewritten: the
# conversion raises under jit (or reads the value once) before any selection or loop primitive runs.
CONCRETIZED = ("it goes through a conversion of an array to a Python value (`int()`, `.item()`), which raises "
               "under jit before a selection or loop primitive could run: compute it with array operations")


# -- the readings on `ast` (the rules decide there: issue 45) ------------------------------------------
_AST_KINDS = (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While, ast.Call)


def traced_nodes_on_ast(file, types):
    """`traced_nodes` on `ast` (file: an ast_rule.AstFile): (flow, node) for every node of `types` in the own
    body of a traced function whose control flow on tracers is a problem, in the order written."""
    if not file.jit.contexts:
        return
    for flow in list(file.traced.flows.values()):
        if rewritable(flow):
            if flow.nodes is None:  # walked once, shared by every control-flow rule on `ast`
                flow.nodes = [n for n in own_nodes_in_order(flow.context.function) if isinstance(n, _AST_KINDS)]
            for node in flow.nodes:
                if isinstance(node, types):
                    yield flow, node


def traced_message_on_ast(file, flow: FunctionFlow, what: str, node: ast.expr, value: Value) -> tuple[str, list]:
    """`traced_message` on `ast`: the test quoted as libcst writes it, its parentheses included."""
    code = file.code_parenthesized(node).strip()
    chain, places = value.derivation()
    shown = f"`{code}`" if chain == f"`{code}`" else f"`{code}` (from {chain})"
    kind = "branch" if what.startswith(("`if`", "conditional")) else "trip count"
    return f"{what} {consequence(flow, kind)}: {shown}", places


def needs_conversion_on_ast(rule, flow: FunctionFlow, test: ast.expr) -> Value | None:
    """`needs_conversion` for a rule on `ast` (rule: an ast_rule.AstRule)."""
    value = flow.value_of(test)
    if value is None or value.static:
        return None
    file = rule.file
    if value.trace is Trace.UNKNOWN:
        chain, places = value.derivation()
        kind = "trip count" if isinstance(file.names.parent(test), (ast.For, ast.AsyncFor, ast.While)) else "branch"
        rule.report(test, f"cannot tell whether `{file.code_parenthesized(test).strip()}` is traced (from {chain})",
                    note=f"not rewritten; if it is, it {consequence(flow, kind)}",
                    hint="if it is a Python value, declare it static; if it is an array, rewrite this by hand",
                    related=places, severity=Severity.INFO)
        return None
    if _deferred(file.traced.is_config, value):
        return None
    return value


def library_call_on_ast(file):
    """Predicate: the callee is a side-effect-free array-library function (`math.laplace`, `jnp.sin`). A
    callee the branch's substitution rebuilt has no qualified names, as libcst's had none (ast_branches)."""
    names = file.names

    def pure(func: ast.expr) -> bool:
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return False
        try:
            qualified = names.qualified_names(func)
        except Exception:
            return False
        return bool(qualified) and all(q.startswith(_LIBRARIES) for q in qualified)

    return pure


def traced_test_inside_on_ast(flow: FunctionFlow, statements) -> ast.expr | None:
    """`traced_test_inside` on `ast`: the first condition or trip count inside `statements` (in the order
    written) that is not static; None: all static."""
    for statement in statements:
        stack = [statement]
        while stack:
            node = stack.pop()
            test = node.test if isinstance(node, (ast.If, ast.While, ast.IfExp)) else \
                node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else None
            value = flow.value_of(test) if test is not None else None
            if value is not None and not value.static:
                return test
            stack.extend(reversed([c for c in in_source_order(node) if not isinstance(c, _AST_SCOPES)]))
    return None


_AST_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


# -- what a fix planned on `ast` hands its builder on libcst ------------------------------------------
def planned_spellings(file, spelled: list[tuple[str, str]]) -> tuple[dict[tuple[str, str], str], tuple]:
    """How the fix's code spells each function it names, and the imports those spellings need, asked in
    the order the writer asks them (emit/spelling.py): the builder writes these texts (PlannedSpelling)."""
    spelling = Spelling(file.names, file.identifiers)
    texts = {key: spelling.text(*key) for key in dict.fromkeys(spelled)}
    return texts, tuple(spelling.imports)


def import_heads(texts: dict[tuple[str, str], str]) -> tuple[str, ...]:
    """The names of the file's imports the spellings start from (`jnp` of `jnp.where`): PlannedFix.spelled."""
    return tuple(dict.fromkeys(text.split(".", 1)[0] for text in texts.values()))


@dataclass(frozen=True)
class Reading:
    """What a builder asks of the rule's reading: the value of a condition's part where the condition is
    evaluated (TracedAnalysis.value_at), and the tree it reads when that is the file's lowered twin."""

    value_at: Callable
    lowered: "AstModule | None"


def reading_of(file) -> Reading:
    return Reading(file.traced.value_at, None if file.reading is file.python else file.reading)


_UNANALYSED = Value(Trace.UNKNOWN, ("not inside an analysed traced function",))


def parts_value_of(locator, reading: Reading, test: ast.expr):
    """The values of the parts of the libcst condition `tensor_condition` converts, as the rule's reading
    has them where `test` is evaluated (each part moved to `ast` by place)."""

    def value_of(expr):
        node = locator.ast_of(expr)
        return reading.value_at(test, node) if node is not None else _UNANALYSED

    return value_of
