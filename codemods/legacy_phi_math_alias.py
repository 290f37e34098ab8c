"""PML602 phi-math-alias."""
from __future__ import annotations

from rewriter.rule import Example, Unchanged, dedented
from rewriter.findings import Safety, Severity

from ._ast_migration import AstTableMigration
from ._migration import describe
from ._migration_rows import PHI_MATH, PHI_MATH_ALIASES, Migration, Status


class PhiMathAlias(AstTableMigration):
    """PhiFlow 2's `phi.math` had names that PhiML's `phiml.math` does not: PhiFlow 3 keeps four of
    them in `phi.math` as aliases (`divide_no_nan = safe_div`, `isfinite = is_finite`,
    `vec_abs = vec_length`, `functional_gradient = gradient`, the last one is PML601) and dropped the
    rest. Code that reaches them through `phiml.math` — ported with `from phiml import math`, or run
    with PhiFlow 3's `from phi.flow import *`, whose `math` is `phiml.math` — fails with
    AttributeError.

    The aliases are renamed to the function they are (`math.divide_no_nan(a, b)` ->
    `math.safe_div(a, b)`), wherever they are read, and a `from phi.math import divide_no_nan`
    imports `safe_div` under the old local name. Renamed functions whose old meaning differs in
    details get an unsafe fix (`unpack_dims` -> `unpack_dim`; `degrees` -> `degrees_to_radians`,
    which uses the exact pi where PhiFlow 2 used 3.1415); functions without an equivalent
    (`transpose`, `hessian`, the tape `gradients`) are reported with what to use instead.

    The `phi.math` imports themselves are not rewritten: in the installed phiflow 3.4, `phi.math` is
    `from phiml.math import *` plus those aliases, so `from phi import math` -> `from phiml import math`
    would change nothing for the names both have and break the aliases. Only the names that are gone
    need a migration. Python's own `math.isfinite` / `math.degrees` resolve to `math`, not to PhiML,
    and are never touched.
    """

    CODE = "PML602"
    NAME = "phi-math-alias"
    SUMMARY = "a PhiFlow 2 `phi.math` name missing from `phiml.math` (`divide_no_nan`, `isfinite`, ...) is renamed to the PhiML function"
    SAFETY = Safety.SAFE
    SAFETY_VARIES = True
    SEVERITY = Severity.ERROR
    FIX_SAFETY = (
        "Safe for `divide_no_nan`, `isfinite` and `vec_abs`: the installed phiflow 3.4 defines them as `safe_div`, "
        "`is_finite` and `vec_length` themselves, so the renamed call runs the same function. Unsafe for `unpack_dims` "
        "(PhiFlow 2.0-2.1 had a separate implementation) and `degrees` (`degrees_to_radians` uses the exact pi: values "
        "change by about 3e-5 relative). `transpose`, `hessian`, `gradients` and `record_gradients` are reported only."
    )
    EXAMPLES = (
        Example(
            "ratio = math.divide_no_nan(math.tensor(1.), math.tensor(0.))\n",
            "ratio = math.safe_div(math.tensor(1.), math.tensor(0.))\n",
        ),
        Example(
            "angle = math.degrees(45)\n",
            "angle = math.degrees_to_radians(45)\n",
            note="unsafe: PhiFlow 2 used pi = 3.1415",
        ),
        Example("y = math.transpose(x, (1, 0))\n", None, note="no equivalent: reported"),
        Unchanged(dedented("""
            import math as pymath

            finite = pymath.isfinite(1.0)
            angle = pymath.degrees(0.5)
        """), "Python's own `math.isfinite` and `math.degrees`"),
        Unchanged("ratio = math.safe_div(math.tensor(1.), math.tensor(0.))\n", "the PhiML name already"),
    )
    TRIGGERS = tuple(("math", name) for name in ("divide_no_nan", "isfinite", "vec_abs", "unpack_dims", "degrees",
                                                  "transpose", "hessian", "gradients"))
    MIGRATIONS = PHI_MATH

    def message(self, migration: Migration, spelled: str) -> str:
        """The alias names say which `math` they are read from: the same `math.vec_abs` is an alias
        through `from phi import math` and missing through `from phi.flow import *` (whose `math` is
        `phiml.math`), and the two findings must say why they differ."""
        module, _, name = migration.source.rpartition(".")
        if name not in PHI_MATH_ALIASES or module not in ("phi.math", "phiml.math"):
            return describe(migration, spelled)
        new = PHI_MATH_ALIASES[name]
        written = spelled.rpartition(".")[0]
        if migration.status is Status.REMOVED:
            which = f"this `{written}` is `phiml.math`, which" if written not in ("", "phiml.math") else "`phiml.math`"
            return (f"`{spelled}` does not exist: {which} never had this PhiFlow 2 name (PhiML 1.0-1.16); "
                    f"only `phi.math` keeps it, as an alias of `{new}`")
        where = "" if written == "phi.math" else " in `phi.math`"
        return f"`{spelled}` is only a compatibility alias{where} (phiflow 3.4: `{name} = {new}`)"
