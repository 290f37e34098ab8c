"""PML604 jax-removed-api."""
from __future__ import annotations

import libcst as cst

from rewriter.codemod import Example, Replace, Unchanged, dedented
from rewriter.findings import Safety, Severity

from ._migration import TableMigration, resolve
from ._migration_rows import JAX_REMOVED, PJIT_PARAMETERS, PJIT_POSITIONS_SINCE
from ._shared import replacement_in_place

_PURE = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


def _side_effect_free(expr: cst.BaseExpression) -> bool:
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, _PURE)


_PJIT_FIRST = "pass its calls' options by keyword first (the fix offered at each call)"
_PJIT_LATER = "renamed once its calls pass their options by keyword"


class JaxRemovedApi(TableMigration):
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

    def __init__(self, file) -> None:
        super().__init__(file)
        self._pjit_imports: list[tuple] = []  # judged once every call is seen

    def _import_from(self, node, alias, module, migration) -> None:
        if migration.source == "jax.experimental.pjit.pjit":
            self._pjit_imports.append((node, alias, module, migration))
            return
        super()._import_from(node, alias, module, migration)

    def leave_Module(self, original_node: cst.Module) -> None:
        super().leave_Module(original_node)
        for node, alias, module, migration in self._pjit_imports:
            if any(map(self._positional_options, self._calls)):
                self.report(alias, self.message(migration, migration.source), hint=_PJIT_FIRST,
                            note=_PJIT_LATER, severity=migration.severity)
            else:
                super()._import_from(node, alias, module, migration)
        for call in self._calls:
            self._pjit_keywords(call)

    def reference(self, node, parent, migration, via_star) -> None:
        call = parent if isinstance(parent, cst.Call) and parent.func is node else None
        if migration.source == "jax.lax.tie_in":
            self._tie_in(node, call, migration)
            return
        if call is not None and migration.source == "jax.experimental.pjit.pjit" and any(
                a.keyword is not None and a.keyword.value == "fun" or a.star for a in call.args):
            self.report(node, self.message(migration, self.file.code(node)),
                        hint="pass the function by position, then use `jax.jit`",
                        note="not rewritten: `jax.jit` takes the function by position only", severity=migration.severity)
            return
        if call is None and migration.source == "jax.experimental.pjit.pjit" and any(map(self._positional_options, self._calls)):
            # Renamed alone, `pjit(f, None, None, (1,))` would become a `jax.jit` given options by position,
            # which it rejects: the calls get their keywords first, the rename follows in the next pass.
            self.report(node, self.message(migration, self.file.code(node)), hint=_PJIT_FIRST,
                        note=_PJIT_LATER, severity=migration.severity)
            return
        if call is not None and migration.source == "jax.numpy.fix" and any(a.keyword is not None and a.keyword.value == "out" for a in call.args):
            self.report(node, self.message(migration, self.file.code(node)), hint="use `jnp.trunc` and assign its result",
                        note="not rewritten: `trunc` has no `out`", severity=migration.severity)
            return
        super().reference(node, parent, migration, via_star)

    def _tie_in(self, node, call: cst.Call | None, migration) -> None:
        message = self.message(migration, self.file.code(node))
        args = list(call.args) if call is not None else []
        by_hand = "replace `tie_in(x, y)` by `y` (it returned `y`)"
        if call is None or len(args) != 2 or any(a.keyword is not None or a.star for a in args):
            self.report(node, message, hint=by_hand, note="not rewritten: not a plain `tie_in(x, y)` call", severity=migration.severity)
            return
        if not _side_effect_free(args[0].value):
            self.report(node, message, hint=by_hand, note="not rewritten: evaluating the first argument may have effects",
                        severity=migration.severity)
            return
        new = replacement_in_place(self.parent(call), call, args[1].value)
        self.report(node, message, edits=[Replace(call, new)], safety=Safety.SAFE, severity=migration.severity,
                    fix_description="use the second argument, which `tie_in` returned")

    def _positional_options(self, call: cst.Call) -> bool:
        """A pjit call that passes options by position (which `_pjit_keywords` turns into keywords)."""
        qualified, _ = resolve(self.file, call.func)
        extra = [a for a in call.args if a.keyword is None][1:]
        return qualified == "jax.experimental.pjit.pjit" and not any(a.star for a in call.args) \
            and 0 < len(extra) <= len(PJIT_PARAMETERS)

    def _pjit_keywords(self, call: cst.Call) -> None:
        qualified, _ = resolve(self.file, call.func)
        if qualified != "jax.experimental.pjit.pjit" or any(a.star for a in call.args):
            return
        positional = [a for a in call.args if a.keyword is None]
        extra = positional[1:]
        if not extra:
            return
        if len(extra) > len(PJIT_PARAMETERS):
            return
        edits = [Replace(a, a.with_changes(keyword=cst.Name(PJIT_PARAMETERS[i]), equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))))
                 for i, a in enumerate(extra)]
        names = ", ".join(f"`{n}`" for n in PJIT_PARAMETERS[: len(extra)])
        self.report(call, "`pjit` options given by position, which `jax.jit` accepts only by keyword", edits=edits,
                    safety=Safety.SAFE, severity=Severity.WARNING, fix_description=f"pass {names} by keyword (the same call)",
                    requires=PJIT_POSITIONS_SINCE)
