"""PML505 solve-tape-in-jit."""
from __future__ import annotations

import ast

from rewriter.analysis.apis import Kind
from rewriter.ast_rule import AstRule
from rewriter.findings import Safety
from rewriter.rule import Example, Unchanged, dedented

from ._ast_hazards import call_api, contexts, own_nodes, trace_related, traced


class SolveTapeInJit(AstRule):
    """`math.SolveTape` records the solves run while it is open. Opened inside a jit-compiled
    function it breaks while tracing: jax raises `UnexpectedTracerError` and then `KeyError` on the
    next call, torch `IndexError: list index out of range` (its implicit-gradient solve is a
    `torch.autograd.Function`, which PhiML's torch tracing does not record), tensorflow happens to work
    (measured). Opened around a call of a jit-compiled function it records only while that function is
    traced: on the first call the entries hold tracers or symbolic tensors, on later calls the tape is
    empty (measured on all three backends). A tape the program never reads (`with SolveTape():`, or
    its name never used) is harmless and not reported: measured, the solve inside a jit-compiled
    function then runs on jax, torch and tensorflow alike.

    Reported only. The portable form returns what the tape was for (the residual, the iteration
    count) as an explicit output of the jit-compiled function, or uses the tape in eager code.
    """

    CODE = "PML505"
    NAME = "solve-tape-in-jit"
    SUMMARY = "`math.SolveTape` inside or around a jit-compiled function: it records tracers, or nothing"
    SAFETY = Safety.DISPLAY
    FIX_SAFETY = "Reported only: what the tape was meant to record has to become an explicit output."
    EXAMPLES = (
        Example(
            dedented("""
                @math.jit_compile
                def solve(y):
                    with math.SolveTape() as tape:
                        x = math.solve_linear(math.laplace, y, math.Solve('CG', 1e-5, 1e-5, x0=y))
                    return x, tape[0].iterations
            """),
            None,
            note="return the residual or iteration count as an output instead",
            by_hand=dedented("""
                @math.jit_compile
                def solve(y):
                    x = math.solve_linear(math.laplace, y, math.Solve('CG', 1e-5, 1e-5, x0=y))
                    return x, math.max(abs(math.laplace(x) - y))
            """),
        ),
        Unchanged(dedented("""
            @math.jit_compile
            def solve(y):
                with math.SolveTape():
                    x = math.solve_linear(math.laplace, y, math.Solve('CG', 1e-5, 1e-5, x0=y))
                return x
        """), "a tape the program never reads"),
    )
    HAZARDS = ("Do not use SolveTape (PyTorch)",)
    READS_FACTS = True
    TRIGGERS = (("SolveTape",),)

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """The file jit-compiles something and calls `SolveTape`."""
        if not syntax.spells(Kind.JIT):
            return False
        facts = syntax.facts
        return facts is not None and facts.jitted and "SolveTape" in facts.callees

    def check(self) -> None:
        file = self.file
        inside: set[int] = set()
        for context in contexts(file, ("phiml",)):
            for node in own_nodes(context.function):
                if isinstance(node, _WITHS) and self._tape(node) is not None and self._read(node, context.function):
                    inside.add(id(node))
                    self.report(self._tape(node), f"`SolveTape` opened inside {traced(context)} fails on jax and torch",
                                hint="return the residual or iteration count as an output instead, or use the tape in eager code",
                                related=trace_related(file, context))
        jit = file.jit
        tree = file.tree
        withs = sorted(file.nodes(*_WITHS), key=lambda n: (n.lineno, n.col_offset))
        for node in withs:
            tape = self._tape(node)
            if tape is None or id(node) in inside or not self._read(node, tree):
                continue
            for inner in own_nodes(node):
                if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and jit.jitted_value(inner.func) is not None:
                    self.report(tape, f"`SolveTape` around a call of the jit-compiled `{inner.func.id}` records only while it is traced",
                                hint="return what you need from the tape as an output of the function",
                                related=[(inner, f"the jit-compiled `{inner.func.id}` is called here")])
                    break

    def _read(self, node: ast.With | ast.AsyncWith, scope: ast.AST) -> bool:
        """Whether the program reads the tape (a name it is bound to, anywhere in `scope`): one it never reads
        records nothing anyone sees, and works on every backend (measured: `with SolveTape():` around a
        solve in a jit-compiled function)."""
        tape = self._tape(node)
        names = {item.optional_vars.id for item in node.items
                 if isinstance(item.optional_vars, ast.Name) and item.context_expr is tape}
        if not names:
            return False
        targets = {id(item.optional_vars) for item in node.items if item.optional_vars is not None}
        return any(isinstance(n, ast.Name) and n.id in names and id(n) not in targets for n in ast.walk(scope))

    def _tape(self, node: ast.With | ast.AsyncWith) -> ast.Call | None:
        for item in node.items:
            if isinstance(item.context_expr, ast.Call) and call_api(self.file, item.context_expr, (Kind.SOLVE_TAPE,)) is not None:
                return item.context_expr
        return None


_WITHS = (ast.With, ast.AsyncWith)
