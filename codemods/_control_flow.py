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
from rewriter.cst_tree import branches, scope_kinds
from rewriter.emit import Emitter, Spelling
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


def emitter(file, flow: FunctionFlow) -> tuple[Emitter, Spelling]:
    spelling = Spelling(file.analysis.names, file.analysis.identifiers)
    return Emitter(flow.framework, spelling), spelling


def deferred_to_static_argument(file, value: Value) -> bool:
    """The value is traced only through configuration parameters (flags, counts, modes: see
    `rewriter.analysis.callsites`) -> PML204 declares them static and the control flow stays."""
    return _deferred(file.analysis.traced.is_config, value)


def _deferred(is_config, value: Value) -> bool:
    if value.staged:
        return False  # computed by a jax operation: still a tracer once its parameters are static
    return bool(value.sources) and all(is_config(source) for source in value.sources)


def traced_message(file, flow: FunctionFlow, what: str, node: cst.CSTNode, value: Value) -> tuple[str, list]:
    """A control-flow finding's message — `what` (`if` on a traced value), its consequence under this
    framework, the test and its derivation without line numbers — and the derivation's places, for
    `related=` (the traced parameter, each assignment on the way)."""
    code = file.code(node).strip()
    chain, places = value.derivation()
    shown = f"`{code}`" if chain == f"`{code}`" else f"`{code}` (from {chain})"
    kind = "branch" if what.startswith(("`if`", "conditional")) else "trip count"
    return f"{what} {consequence(flow, kind)}: {shown}", places


def block_statements(node) -> list:
    body = node.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else [cst.SimpleStatementLine(body.body)] \
        if isinstance(body, cst.SimpleStatementSuite) else list(body)


def own_nodes(fn: cst.CSTNode):
    """Nodes of `fn`'s own body, pre-order, not descending into nested functions or classes."""
    stack = [fn.body]
    scopes = scope_kinds()
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed([c for c in branches(node) if type(c) not in scopes]))  # (no caller looks for a token)


def traced_test_inside(flow: FunctionFlow, statements) -> cst.CSTNode | None:
    """The first condition or trip count inside `statements` that is not static (None: all static)."""
    for statement in statements:
        for node in own_nodes_of(statement):
            test = node.test if isinstance(node, (cst.If, cst.While, cst.IfExp)) else node.iter if isinstance(node, cst.For) else None
            value = flow.value_of(test) if test is not None else None
            if value is not None and not value.static:
                return test
    return None


def own_nodes_of(node: cst.CSTNode):
    stack = [node]
    scopes = scope_kinds()
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed([c for c in branches(current) if type(c) not in scopes]))


def traced_nodes(file, types):
    """(flow, node) for every node of `types` in the own body of a traced function whose control
    flow on tracers is a problem (see `rewritable`)."""
    if not file.analysis.jit.contexts:
        return
    for flow in list(file.analysis.traced.flows.values()):
        if rewritable(flow):
            if flow.nodes is None:  # walked once, shared by every control-flow rule
                kinds = {cst.If, cst.IfExp, cst.For, cst.While, cst.Call}
                flow.nodes = [n for n in own_nodes(flow.context.function) if type(n) in kinds]
            for node in flow.nodes:
                if isinstance(node, types):
                    yield flow, node


# Why a condition that goes through `int(x)` / `x.item()` of an array is reported, not rewritten: the
# conversion raises under jit (or reads the value once) before any selection or loop primitive runs.
CONCRETIZED = ("it goes through a conversion of an array to a Python value (`int()`, `.item()`), which raises "
               "under jit before a selection or loop primitive could run: compute it with array operations")


def needs_conversion(codemod, flow: FunctionFlow, test: cst.CSTNode) -> Value | None:
    """The value of `test` when it is traced and this rule handles it; None otherwise. An undecidable
    value is reported (info, no fix); one traced only through Python int/bool parameters is PML204's."""
    value = flow.value_of(test)
    if value is None or value.static:
        return None
    if value.trace is Trace.UNKNOWN:
        chain, places = value.derivation()
        kind = "trip count" if isinstance(codemod.parent(test), (cst.For, cst.While)) else "branch"
        codemod.report(test, f"cannot tell whether `{codemod.file.code(test).strip()}` is traced (from {chain})",
                       note=f"not rewritten; if it is, it {consequence(flow, kind)}",
                       hint="if it is a Python value, declare it static; if it is an array, rewrite this by hand",
                       related=places, severity=Severity.INFO)
        return None
    if deferred_to_static_argument(codemod.file, value):
        return None
    return value


# -- the same readings on `ast` (issue 45: the rules that moved there) --------------------------------
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
