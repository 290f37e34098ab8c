"""PML604 jax-removed-api."""
from __future__ import annotations

import ast
from functools import partial

from rewriter.lazy_libcst import cst

from rewriter.ast_rule import PlannedFix
from rewriter.codemod import Replace
from rewriter.findings import Safety, Severity
from rewriter.rule import Example, Unchanged, dedented

from ._ast_migration import AstTableMigration
from ._migration_rows import JAX_REMOVED, PJIT_PARAMETERS, PJIT_POSITIONS_SINCE
from ._shared import replacement_in_place


def _side_effect_free(expr: ast.expr) -> bool:
    """A name, a number or a string, or an attribute of one: evaluating it has no effect."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name) or isinstance(expr, ast.Constant) and expr.value is not Ellipsis


_PJIT_FIRST = "pass its calls' options by keyword first (the fix offered at each call)"
_PJIT_LATER = "renamed once its calls pass their options by keyword"


class JaxRemovedApi(AstTableMigration):
    """jax has removed a series of aliases and helpers that older code uses: `jnp.product`,
    `jnp.cumproduct`, `jnp.alltrue`, `jnp.sometrue`, `jnp.row_stack`, `jnp.round_` (aliases of
    `prod`, `cumprod`, `all`, `any`, `vstack`, `round`), the constants `jnp.NINF`, `jnp.PZERO`,
    `jnp.NZERO`, `jnp.fix` (now `jnp.trunc`), `jax.random.KeyArray`, `jax.abstract_arrays`,
    `jax.ad_checkpoint.checkpoint`, `jax.lax.tie_in`, and the `jax.experimental.host_callback`
    module. On the installed jax each raises AttributeError or ModuleNotFoundError.
    `jax.experimental.pjit.pjit` still works but is deprecated in favour of `jax.jit`.

    Every rewrite is to what the old name *was* (read from the jax release that still had it):
    `jnp.product` was `jnp.prod`, `jnp.NINF` was `-inf`, `jnp.fix` was `where(x >= 0, floor(x), ceil(x))`
    (rounding towards zero, which `jnp.trunc` does), `jax.abstract_arrays.ShapedArray` was the
    class `jax.core.ShapedArray` is, `jax.ad_checkpoint.remat` was `jax.checkpoint`, and
    `lax.tie_in(x, y)` returned `y`. `KeyArray`/`DeviceArray` become `jax.Array` in annotations
    only (an `isinstance` check against `jax.Array` also matches tracers: reported there).
    `pjit(f, in_s, out_s)` first gets its positional options as keywords (the same call; `jax.jit`
    accepts them only by keyword), then becomes `jax.jit` — unsafe, since `pjit` also reads the
    shardings of an enclosing `with mesh:`. What has no equivalent with the same meaning (`in1d`,
    which flattened its result; `host_callback`; `device_put_replicated`) is reported with the fix
    to make by hand.
    """

    CODE = "PML604"
    NAME = "jax-removed-api"
    SUMMARY = "a removed jax alias (`jnp.product`, `jnp.NINF`, `random.KeyArray`, `lax.tie_in`, ...) becomes what it was"
    SAFETY = Safety.SAFE
    SAFETY_VARIES = True
    SEVERITY = Severity.ERROR
    FIX_SAFETY = (
        "Safe where the old name was an alias of the new one or a constant (checked against the jax sources of the "
        "releases that had them, and the new names against the installed jax), `tie_in(x, y)` -> `y` only when `x` has "
        "no side effects, `KeyArray` -> `jax.Array` only in annotations. Unsafe: `jnp.trapz` -> `jnp.trapezoid` (a "
        "separate implementation of the same rule) and `pjit` -> `jax.jit` (pjit also applies the shardings of an "
        "enclosing mesh context). Reported only: `in1d`, `issubsctype`, `host_callback`, `device_put_replicated`/"
        "`device_put_sharded`, `clear_backends`, and `KeyArray` outside annotations."
    )
    EXAMPLES = (
        Example("total = jnp.product(jnp.arange(1, 5))\n", "total = jnp.prod(jnp.arange(1, 5))\n"),
        Example("lowest = jnp.maximum(jnp.zeros(3), jnp.NINF)\n", "lowest = jnp.maximum(jnp.zeros(3), -jnp.inf)\n"),
        Example(
            dedented("""
                def split(key: jax.random.KeyArray):
                    return jax.random.split(key)
            """),
            dedented("""
                def split(key: jax.Array):
                    return jax.random.split(key)
            """),
            note="KeyArray in an annotation",
        ),
        Unchanged("total = jnp.prod(jnp.arange(1, 5))\n", "the current name already"),
        Unchanged(dedented("""
            product = 1
            for n in (2, 3):
                product = product * n
        """), "a variable of your own called `product`"),
    )
    TRIGGERS = tuple(sorted({("jax", m.source.rsplit(".", 1)[1]) for m in JAX_REMOVED}))
    MIGRATIONS = JAX_REMOVED

    CALLS = frozenset({"pjit"})

    def check(self) -> None:
        self._pjit_imports: list[tuple] = []  # judged once every call is seen
        super().check()
        calls = self.calls()
        for node, index, module, migration in self._pjit_imports:
            if any(map(self._positional_options, calls)):
                self.report(node.names[index], self.message(migration, migration.source), hint=_PJIT_FIRST,
                            note=_PJIT_LATER, severity=migration.severity)
            else:
                super()._import_from(node, index, module, migration)
        for call in calls:
            self._pjit_keywords(call)

    def _import_from(self, node, index, module, migration) -> None:
        if migration.source == "jax.experimental.pjit.pjit":
            self._pjit_imports.append((node, index, module, migration))
            return
        super()._import_from(node, index, module, migration)

    def reference(self, node, migration, via_star) -> None:
        parent = self.file.names.parent(node)
        call = parent if isinstance(parent, ast.Call) and parent.func is node else None
        spelled = self.file.python.text(node)
        if migration.source == "jax.lax.tie_in":
            self._tie_in(node, call, migration)
            return
        if call is not None and migration.source == "jax.experimental.pjit.pjit" and (
                any(k.arg == "fun" for k in call.keywords) or _unpacks(call)):
            self.report(node, self.message(migration, spelled),
                        hint="pass the function by position, then use `jax.jit`",
                        note="not rewritten: `jax.jit` takes the function by position only", severity=migration.severity)
            return
        if call is None and migration.source == "jax.experimental.pjit.pjit" and any(map(self._positional_options, self.calls())):
            # Renamed alone, `pjit(f, None, None, (1,))` would become a `jax.jit` given options by position,
            # which it rejects: the calls get their keywords first, the rename follows in the next pass.
            self.report(node, self.message(migration, spelled), hint=_PJIT_FIRST,
                        note=_PJIT_LATER, severity=migration.severity)
            return
        if call is not None and migration.source == "jax.numpy.fix" and any(k.arg == "out" for k in call.keywords):
            self.report(node, self.message(migration, spelled), hint="use `jnp.trunc` and assign its result",
                        note="not rewritten: `trunc` has no `out`", severity=migration.severity)
            return
        super().reference(node, migration, via_star)

    def _tie_in(self, node: ast.expr, call: ast.Call | None, migration) -> None:
        message = self.message(migration, self.file.python.text(node))
        by_hand = "replace `tie_in(x, y)` by `y` (it returned `y`)"
        if call is None or len(call.args) != 2 or call.keywords or _unpacks(call):
            self.report(node, message, hint=by_hand, note="not rewritten: not a plain `tie_in(x, y)` call", severity=migration.severity)
            return
        if not _side_effect_free(call.args[0]):
            self.report(node, message, hint=by_hand, note="not rewritten: evaluating the first argument may have effects",
                        severity=migration.severity)
            return
        self.report(node, message, severity=migration.severity,
                    fix=PlannedFix("use the second argument, which `tie_in` returned", (call,), _write_second, Safety.SAFE))

    def _positional_options(self, call: ast.Call) -> bool:
        """A pjit call that passes options by position (which `_pjit_keywords` turns into keywords)."""
        qualified, _ = self._resolve(call.func)
        return qualified == "jax.experimental.pjit.pjit" and not _unpacks(call) and 0 < len(call.args[1:]) <= len(PJIT_PARAMETERS)

    def _pjit_keywords(self, call: ast.Call) -> None:
        qualified, _ = self._resolve(call.func)
        if qualified != "jax.experimental.pjit.pjit" or _unpacks(call):
            return
        extra = call.args[1:]
        if not extra or len(extra) > len(PJIT_PARAMETERS):
            return
        names = ", ".join(f"`{n}`" for n in PJIT_PARAMETERS[: len(extra)])
        self.report(call, "`pjit` options given by position, which `jax.jit` accepts only by keyword", severity=Severity.WARNING,
                    fix=PlannedFix(f"pass {names} by keyword (the same call)", (call,),
                                   partial(_write_keywords, count=len(extra)), Safety.SAFE),
                    requires=PJIT_POSITIONS_SINCE)


def _unpacks(call: ast.Call) -> bool:
    """`*args` or `**kwargs` among the arguments (libcst's `Arg.star`)."""
    return any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)


def _write_second(context, call: cst.CSTNode) -> list[Replace] | None:
    """`tie_in(x, y)` -> `y`."""
    if not isinstance(call, cst.Call) or len(call.args) != 2:
        return None
    return [Replace(call, replacement_in_place(context.analysis.names.parent(call), call, call.args[1].value))]


def _write_keywords(context, call: cst.CSTNode, *, count: int) -> list[Replace] | None:
    """The options after the function, given by keyword in the same order."""
    if not isinstance(call, cst.Call):
        return None
    extra = [a for a in call.args if a.keyword is None][1:]
    if len(extra) != count:
        return None
    return [Replace(a, a.with_changes(keyword=cst.Name(PJIT_PARAMETERS[i]), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))))
            for i, a in enumerate(extra)]
