"""PML507 cond-under-vmap."""
from __future__ import annotations

import ast

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_jit import match_application, match_transform
from rewriter.analysis.ast_names import own_nodes as own_nodes_on_ast
from rewriter.ast_rule import AstRule
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from ._ast_hazards import call_api, own_nodes


class CondUnderVmap(AstRule):
    """Under `jax.vmap`, a `lax.cond` (or `lax.switch`) whose predicate is batched becomes a `select`:
    both branches run for every element, and the result is picked afterwards. That costs the work of
    both branches, and a branch that loops (`lax.while_loop`) until a condition that only its own
    elements reach may never stop for the others (numpyro#1461). With an unbatched predicate it stays
    a real `cond`.

    Information only: nothing is wrong when both branches are cheap and terminate for any input. If a
    branch is expensive, compute it for the elements that need it outside the vmapped function.
    """

    CODE = "PML507"
    NAME = "cond-under-vmap"
    SUMMARY = "`lax.cond` in a vmapped function: with a batched predicate both branches run for every element"
    SAFETY = Safety.DISPLAY
    SEVERITY = Severity.INFO
    FIX_SAFETY = "Reported only: whether both branches may run is for the author to judge."
    EXAMPLES = (
        Example(
            dedented("""
                @jax.vmap
                def safe_log(x):
                    return jax.lax.cond(x > 0, jnp.log, lambda v: jnp.zeros_like(v), x)
            """),
            None,
            "both branches run for every element",
            by_hand=dedented("""
                @jax.vmap
                def safe_log(x):
                    return jnp.where(x > 0, jnp.log(jnp.where(x > 0, x, 1.0)), 0.0)  # both sides cheap and safe
            """),
        ),
        Unchanged(dedented("""
            @jax.jit
            def safe_log(x):
                return jax.lax.cond(x > 0, jnp.log, lambda v: jnp.zeros_like(v), x)
        """), "a `lax.cond` under `jax.jit` alone"),
        Unchanged(dedented("""
            @jax.vmap
            def relu(x):
                return jnp.where(x > 0, x, 0.0)
        """), "a `jnp.where` in a vmapped function"),
    )
    HAZARDS = ("`jax.lax.cond` combined with `jax.vmap`",)
    READS_FACTS = True
    TRIGGERS = (("vmap", "cond"), ("vmap", "switch"))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A vmap and a `lax.cond`/`lax.switch` call in one file, the call in a vmapped function or in a
        function it names (its helpers, the branches it hands on), as `leave_Module` follows them."""
        if not (syntax.spells(Kind.VMAP) and syntax.spells(Kind.BRANCH)):
            return False
        facts = syntax.facts
        if facts is None or not (facts.vmapped and facts.branches):
            return False
        if facts.vmap_by_keyword:
            return True  # `vmap(fun=f)`: the function is not read here
        work: list[ast.AST] = []
        for target in facts.vmapped_functions:  # jit.functions_denoted: a lambda, or a name bound only to defs
            if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                work.append(target)
            elif isinstance(target, ast.Name):
                work += facts.defs(target.id)
        seen: set[int] = set()
        while work:
            fn = work.pop()
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            for node in own_nodes_on_ast(fn):
                if isinstance(node, ast.Name):
                    work += facts.defs(node.id)
                elif id(node) in facts.branch_calls:
                    return True
        return False

    def check(self) -> None:
        file = self.file
        names, jit = file.names, file.jit
        vmapped: list[tuple[ast.AST, str]] = []
        for fn in _in_order(n for n in file.nodes(*_DEFS) if n.decorator_list):
            if any(_is_jax_vmap(match_transform(names, d, (Kind.VMAP,))) for d in fn.decorator_list):
                vmapped.append((fn, f"`{fn.name}`"))
        for call in _in_order(n for n in file.nodes(ast.Call) if _spells_vmap(n.func)):
            app = match_application(names, call, (Kind.VMAP,))
            if app is not None and _is_jax_vmap(app.transform):
                vmapped += [(fn, f"`{fn.name}`" if isinstance(fn, _DEFS) else "the lambda")
                            for fn in jit.functions_denoted(app.function)]
        seen: set[int] = set()
        work = list(vmapped)
        while work:
            fn, label = work.pop()
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            for node in own_nodes(fn):
                if isinstance(node, ast.Name):  # helpers it calls or hands to a branch are vectorised too
                    work += [(helper, f"`{helper.name}` (used by {label})")
                             for helper in jit.functions_denoted(node) if isinstance(helper, _DEFS)]
                    continue
                if not isinstance(node, ast.Call):
                    continue
                api = call_api(file, node, (Kind.BRANCH,))
                if api is not None:
                    name = api.name.rsplit(".", 1)[1]
                    self.report(node, f"`lax.{name}` in {label}, vectorised by `jax.vmap`: every branch may run for every element",
                                hint="fine if the branches are cheap and always terminate; else compute the expensive one "
                                     "outside the vmapped function",
                                note="with a batched predicate it becomes a select: the branches' costs add up, and a branch "
                                     "that loops until its own condition may not stop")


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _in_order(nodes) -> list:
    return sorted(nodes, key=lambda n: (n.lineno, n.col_offset, -n.end_lineno, -n.end_col_offset))


def _spells_vmap(func: ast.expr) -> bool:
    """A callee whose last name holds `vmap` (`jax.vmap`, `vmap`, `nn.vmap`)."""
    return isinstance(func, ast.Attribute) and "vmap" in func.attr or isinstance(func, ast.Name) and "vmap" in func.id


def _is_jax_vmap(transform) -> bool:
    return transform is not None and transform.framework == "jax"
