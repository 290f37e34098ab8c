"""The legacy-migration table (PML6xx): one row per removed, deprecated or aliased name, with named fields.

Every row was built from the *installed* libraries (phiml 1.16.1, phiflow 3.4, jax 0.10.2) and from
the releases the old code was written for (PhiFlow 2.0-2.4 `phi/math`, PhiML 1.0-1.15, jax 0.3-0.6
sources and CHANGELOG.md). `tests/test_migrations.py` re-checks every row against what is installed:
each target exists (import + getattr), each source is really gone (AttributeError / ImportError),
deprecated (warns), or a compatibility alias that *is* the target object. Data only: how a row is
matched and reported is codemods/_migration.py.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from rewriter.findings import Safety, Severity


class Status(str, enum.Enum):
    REMOVED = "removed"  # AttributeError / ImportError on the installed version
    DEPRECATED = "deprecated"  # still present on the installed version, warns when used
    ALIAS = "alias"  # present only as a compatibility alias: the very object the target names


@dataclass(frozen=True)
class Migration:
    """One legacy name and what replaces it, with the evidence and the fix's safety: a row of the migration rules."""
    source: str  # the legacy qualified name
    target: str | None  # what replaces it (None: reported with the manual fix, never rewritten)
    safety: Safety  # of the automatic fix (DISPLAY when there is none)
    status: Status
    since: str  # the release that removed / deprecated it
    why: str  # the evidence that the target means the same (or what differs)
    value: tuple[str, str] | None = None  # the replacement is a value: ("neg_attr", "inf") / ("literal", "-0.0")
    annotation_only: bool = False  # the fix is only offered where the reference is a type annotation
    module: bool = False  # the source is a whole module: reported at its imports
    # What the fix needs of the project's libraries: (import root, the first release whose target has the
    # meaning `why` gives it). A project that may run an older one (a pin, a copy of its own) keeps the
    # finding without the fix (rewriter/project/targets.py).
    requires: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        return self.source.rsplit(".", 1)[1]

    @property
    def severity(self) -> Severity:
        return {Status.REMOVED: Severity.ERROR, Status.DEPRECATED: Severity.WARNING, Status.ALIAS: Severity.INFO}[self.status]


# --- PML601 functional-gradient -------------------------------------------------------------------
_FG_WHY = ("the installed phiflow 3.4 defines `functional_gradient = gradient`; PhiFlow 2.3-2.4's functional_gradient was "
           "gradient's code, with the same parameters and defaults")
FUNCTIONAL_GRADIENT: tuple[Migration, ...] = (
    Migration(
        source="phiml.math.functional_gradient",
        target="phiml.math.gradient",
        safety=Safety.SAFE,
        status=Status.REMOVED,
        since="PhiML 1.0-1.16: never part of phiml.math",
        why=_FG_WHY,
        requires=(("phiml", "1.0.0"),),
    ),
    Migration(
        source="phi.math.functional_gradient",
        target="phi.math.gradient",
        safety=Safety.SAFE,
        status=Status.ALIAS,
        since="phiflow 3.4: `functional_gradient = gradient`",
        why=_FG_WHY,
        # PhiFlow 1.x's `math.gradient` is the spatial gradient of a grid; 2.2-2.4's is `jacobian`
        requires=(("phi", "2.5.0"),),
    ),
    Migration(
        source="phiml.functional_gradient",
        target="phiml.gradient",
        safety=Safety.SAFE,
        status=Status.ALIAS,
        since="phiml 1.13: `gradient as functional_gradient`",
        why=_FG_WHY,
        requires=(("phiml", "1.13.0"),),
    ),
    *(Migration(
          source=f"{m}.functional_gradient",
          target=f"{m}.gradient",
          safety=Safety.SAFE,
          status=Status.ALIAS,
          since="phiflow 3.4 re-exports phiml's alias",
          why=_FG_WHY,
          requires=(("phi", "3.0.0"),),  # `phi.flow` exports `gradient` from 3.0
      )
      for m in ("phi.flow", "phi.jax.flow", "phi.torch.flow", "phi.tf.flow")),
)
# `wrt` given by parameter names: PhiFlow from 2.2.1 (positions only before), every phiml.
WRT_BY_NAME_SINCE = (("phi", "2.2.1"),)
# Gradient functions whose `wrt` given by position is deprecated in the installed phiml (SyntaxWarning
# "Specifying wrt by position is deprecated"): positions are mapped to parameter names.
GRADIENT_FUNCTIONS = frozenset({
    "phiml.math.gradient", "phiml.math.jacobian", "phi.math.gradient", "phi.math.jacobian", "phiml.gradient",
    *(m.source for m in FUNCTIONAL_GRADIENT), *(m.target for m in FUNCTIONAL_GRADIENT),
})

# --- PML602 phi-math-alias ------------------------------------------------------------------------
# The first PhiFlow whose `phi.math` has each target with the meaning the alias gives it (read in every release's
# source): before 2.4 `divide_no_nan` was its own function and `safe_div` absent; likewise 2.2 for `is_finite`.
_PHI_TARGET_SINCE = {"safe_div": "2.4.0", "is_finite": "2.2.0", "vec_length": "2.1.0"}
PHI_MATH_ALIASES = {  # phi.math 3.4 keeps these four names as aliases of phiml.math functions (phi/math/__init__.py)
    "divide_no_nan": "safe_div",
    "isfinite": "is_finite",
    "vec_abs": "vec_length",
}
PHI_MATH: tuple[Migration, ...] = (
    *(Migration(
          source=f"phiml.math.{old}",
          target=f"phiml.math.{new}",
          safety=Safety.SAFE,
          status=Status.REMOVED,
          since="PhiML 1.0-1.16: a PhiFlow 2 name phiml.math never had",
          why=f"phiflow 3.4 defines `phi.math.{old} = {new}`: the same function",
          requires=(("phiml", "1.0.0"),),
      ) for old, new in PHI_MATH_ALIASES.items()),
    *(Migration(
          source=f"phi.math.{old}",
          target=f"phi.math.{new}",
          safety=Safety.SAFE,
          status=Status.ALIAS,
          since=f"phiflow 3.4: `{old} = {new}`",
          why=f"phiflow 3.4 defines `phi.math.{old} = {new}`: the same function",
          requires=(("phi", _PHI_TARGET_SINCE[new]),),
      ) for old, new in PHI_MATH_ALIASES.items()),
    *(Migration(
          source=f"{m}.unpack_dims",
          target=f"{m}.unpack_dim",
          safety=Safety.UNSAFE,
          status=Status.REMOVED,
          since="PhiFlow 2.3",
          why="PhiFlow 2.2 exported `unpack_dim as unpack_dims` (the same function); PhiFlow 2.0-2.1 had a separate "
              "`unpack_dims(value, dim, unpacked_dims)` whose Shape argument `unpack_dim` also accepts",
          requires=(("phiml", "1.0.0"),) if m == "phiml.math" else (("phi", "2.2.0"),),
      ) for m in ("phiml.math", "phi.math")),
    *(Migration(
          source=f"{m}.degrees",
          target=f"{m}.degrees_to_radians",
          safety=Safety.UNSAFE,
          status=Status.REMOVED,
          since="phiml 1.1",
          why="PhiFlow 2.1-2.4 and phiml 1.0 `degrees(deg)` converted degrees to radians with pi = 3.1415; "
              "`degrees_to_radians` uses the exact pi (results differ by ~3e-5 relative)",
          requires=(("phiml", "1.1.0"),) if m == "phiml.math" else (("phi", "3.0.0"),),
      ) for m in ("phiml.math", "phi.math")),
    *(Migration(
          source=f"{m}.transpose",
          target=None,
          safety=Safety.DISPLAY,
          status=Status.REMOVED,
          since="phiml 1.10",
          why="PhiFlow 2 `transpose(x, axes)` reordered a native tensor (a no-op for PhiML tensors): use the backend's "
              "transpose on native tensors, or nothing (PhiML dims are named)",
      ) for m in ("phiml.math", "phi.math")),
    *(Migration(
          source=f"{m}.hessian",
          target=None,
          safety=Safety.DISPLAY,
          status=Status.REMOVED,
          since="PhiFlow 2.3",
          why="PhiFlow 2.1-2.2 had `hessian(f, wrt, ...)`; phiml.math 1.16 has no hessian: nest `math.jacobian` of "
              "`math.gradient`, or use the backend's hessian",
      ) for m in ("phiml.math", "phi.math")),
    *(Migration(
          source=f"{m}.{old}",
          target=None,
          safety=Safety.DISPLAY,
          status=Status.REMOVED,
          since="PhiFlow 2.2",
          why="PhiFlow 2.0-2.1 tape gradients (`record_gradients`/`gradients`) were removed: compute them with "
              "`math.gradient(f, wrt=...)`",
      ) for m in ("phiml.math", "phi.math") for old in ("gradients", "record_gradients")),
)

# --- PML603 jax-tree-api --------------------------------------------------------------------------
_TREE_WHY = ("jax <= 0.5.3 defined `jax.{old}` as `jax._src.tree_util.{util}`, the function behind `jax.tree_util.{util}`; "
             "`jax.tree.{new}` calls it with the same parameters (removed in jax 0.6.0, CHANGELOG)")
JAX_TREE: tuple[Migration, ...] = (
    *(Migration(
          source=f"jax.{old}",
          target=f"jax.tree.{new}",
          safety=Safety.SAFE,
          status=Status.REMOVED,
          since="jax 0.6.0",
          why=_TREE_WHY.format(old=old, util=old, new=new),
          requires=(("jax", "0.4.31" if new == "transpose" else "0.4.25"),),  # the `jax.tree` module
      )
      for old, new in (("tree_map", "map"), ("tree_leaves", "leaves"), ("tree_flatten", "flatten"),
                       ("tree_unflatten", "unflatten"), ("tree_structure", "structure"), ("tree_transpose", "transpose"))),
    Migration(
        source="jax.treedef_is_leaf",
        target="jax.tree_util.treedef_is_leaf",
        safety=Safety.SAFE,
        status=Status.REMOVED,
        since="jax 0.6.0",
        why="jax <= 0.5.3 defined `jax.treedef_is_leaf` as `jax._src.tree_util.treedef_is_leaf`, which "
            "`jax.tree_util.treedef_is_leaf` is (CHANGELOG 0.6.0)",
    ),
    Migration(
        source="jax.tree_multimap",
        target="jax.tree.map",
        safety=Safety.SAFE,
        status=Status.REMOVED,
        since="jax 0.3.16",
        why="`tree_multimap` was a deprecated alias forwarding to `tree_map` (CHANGELOG 0.3.16: \"a direct replacement\")",
        requires=(("jax", "0.4.25"),),
    ),
    Migration(
        source="jax.tree_util.tree_multimap",
        target="jax.tree_util.tree_map",
        safety=Safety.SAFE,
        status=Status.REMOVED,
        since="jax 0.3.16",
        why="`tree_multimap` was a deprecated alias forwarding to `tree_map` (CHANGELOG 0.3.16: \"a direct replacement\")",
        requires=(("jax", "0.2.13"),),  # `tree_map` of several trees
    ),
    Migration(
        source="jax.tree_util.build_tree",
        target=None,
        safety=Safety.DISPLAY,
        status=Status.REMOVED,
        since="jax 0.6.0 deprecated, removed 0.7.0",
        why="`build_tree(treedef, xs)` took a nested structure of children: rebuild with `jax.tree.unflatten(treedef, leaves)`",
    ),
    Migration(
        source="jax.tree_util.register_keypaths",
        target=None,
        safety=Safety.DISPLAY,
        status=Status.REMOVED,
        since="jax 0.4.24",
        why="key paths are built in: register the class with `jax.tree_util.register_pytree_with_keys`",
    ),
)

# --- PML604 jax-removed-api -----------------------------------------------------------------------
_JNP_ALIAS = "jax <= 0.4.x `jax/numpy/__init__.py` defined `{old}` as `{new}` itself (deprecated {dep}, removed {rem})"
JAX_REMOVED: tuple[Migration, ...] = (
    *(Migration(
          source=f"jax.numpy.{old}",
          target=f"jax.numpy.{new}",
          safety=Safety.SAFE,
          status=Status.REMOVED,
          since=f"jax {rem}",
          why=_JNP_ALIAS.format(old=old, new=new, dep=dep, rem=rem),
      )
      for old, new, dep, rem in (("alltrue", "all", "0.4.12", "0.4.16"), ("sometrue", "any", "0.4.12", "0.4.16"),
                                 ("product", "prod", "0.4.12", "0.4.16"), ("cumproduct", "cumprod", "0.4.12", "0.4.16"),
                                 ("row_stack", "vstack", "0.4.16", "0.4.24"), ("round_", "round", "0.4.32", "0.4.38"))),
    Migration(
        source="jax.numpy.NINF",
        target="jax.numpy.inf",
        safety=Safety.SAFE,
        status=Status.REMOVED,
        since="jax 0.4.24",
        why="`NINF` was the float `-inf` (CHANGELOG: \"use -jax.numpy.inf\")",
        value=("neg_attr", "inf"),
    ),
    Migration(
        source="jax.numpy.NZERO",
        target=None,
        safety=Safety.SAFE,
        status=Status.REMOVED,
        since="jax 0.4.24",
        why="`NZERO` was the float `-0.0`",
        value=("literal", "-0.0"),
    ),
    Migration(
        source="jax.numpy.PZERO",
        target=None,
        safety=Safety.SAFE,
        status=Status.REMOVED,
        since="jax 0.4.24",
        why="`PZERO` was the float `0.0`",
        value=("literal", "0.0"),
    ),
    Migration(
        source="jax.numpy.fix",
        target="jax.numpy.trunc",
        safety=Safety.SAFE,
        status=Status.REMOVED,
        since="jax 0.9.0 deprecated, removed 0.10.0",
        why="`fix(x)` was `where(x >= 0, floor(x), ceil(x))`, i.e. rounding towards zero; CHANGELOG 0.9.0: "
            "\"jax.numpy.trunc is a drop-in replacement\"",
    ),
    Migration(
        source="jax.numpy.trapz",
        target="jax.numpy.trapezoid",
        safety=Safety.UNSAFE,
        status=Status.REMOVED,
        since="jax 0.4.24",
        requires=(("jax", "0.4.26"),),
        why="a separate implementation of the same trapezoid rule (same parameters y, x, dx, axis): results may differ in rounding",
    ),
    Migration(
        source="jax.numpy.in1d",
        target=None,
        safety=Safety.DISPLAY,
        status=Status.REMOVED,
        since="jax 0.4.24",
        why="`in1d(a, b)` flattened its result: use `jnp.isin(a, b).ravel()`",
    ),
    Migration(
        source="jax.numpy.issubsctype",
        target=None,
        safety=Safety.DISPLAY,
        status=Status.REMOVED,
        since="jax 0.4.24",
        why="use `jnp.issubdtype(jnp.result_type(x), t)`",
    ),
    Migration(
        source="jax.numpy.DeviceArray",
        target="jax.Array",
        safety=Safety.SAFE,
        status=Status.REMOVED,
        since="jax 0.4.14",
        why="`jax.Array` is the array type (use it in annotations; "
            "`isinstance` differs: `jax.Array` also matches tracers)",
        annotation_only=True,
        requires=(("jax", "0.3.19"),),
    ),
    *(Migration(
          source=f"jax.random.{old}",
          target="jax.Array",
          safety=Safety.SAFE,
          status=Status.REMOVED,
          since="jax 0.4.24",
          why="CHANGELOG 0.4.16: \"Use jax.Array for annotations, and jax.dtypes.issubdtype(arr.dtype, jax.dtypes.prng_key) "
              "for runtime detection of typed prng keys\"",
          annotation_only=True,
          requires=(("jax", "0.3.19"),),
      ) for old in ("KeyArray", "PRNGKeyArray")),
    Migration(
        source="jax.abstract_arrays.ShapedArray",
        target="jax.core.ShapedArray",
        safety=Safety.SAFE,
        status=Status.REMOVED,
        since="jax 0.4.16",
        why="`jax.abstract_arrays.ShapedArray` was `jax._src.core.ShapedArray`, which `jax.core.ShapedArray` is",
    ),
    *(Migration(
          source=f"jax.ad_checkpoint.{old}",
          target="jax.checkpoint",
          safety=Safety.SAFE,
          status=Status.REMOVED,
          since="jax 0.8.2 deprecated, removed 0.10.0",
          why=f"`jax.ad_checkpoint.{old}` was `jax._src.ad_checkpoint.checkpoint`, which `jax.checkpoint` is",
          requires=(("jax", "0.3.17"),),  # the same implementation from 0.3.17
      ) for old in ("checkpoint", "remat")),
    Migration(
        source="jax.lax.tie_in",
        target=None,
        safety=Safety.SAFE,
        status=Status.REMOVED,
        since="jax 0.4.29",
        why="`tie_in(x, y)` returned `y` (a no-op since jax 0.2.0): the call is "
            "replaced by its second argument when the first has no side effects",
    ),
    Migration(
        source="jax.experimental.pjit.pjit",
        target="jax.jit",
        safety=Safety.UNSAFE,
        status=Status.DEPRECATED,
        since="jax 0.8.0 (\"Please use jax.jit instead\")",
        why="both build the same jit wrapper, but `pjit` also picks up shardings from an enclosing `with mesh:` "
            "(`use_resource_env=True`), and `jax.jit` takes everything after the function by keyword only",
        requires=(("jax", "0.4.36"),),  # every pjit keyword (`compiler_options` last) is also `jax.jit`'s
    ),
    Migration(
        source="jax.experimental.host_callback",
        target=None,
        safety=Safety.DISPLAY,
        status=Status.REMOVED,
        since="jax 0.4.26 deprecated; its APIs removed in 0.4.35, the module in 0.8",
        why="use `jax.debug.callback` (id_tap/id_print), `jax.pure_callback` or `jax.experimental.io_callback` (call)",
        module=True,
    ),
    Migration(
        source="jax.abstract_arrays",
        target=None,
        safety=Safety.DISPLAY,
        status=Status.REMOVED,
        since="jax 0.4.17 (its `ShapedArray` in 0.4.16)",
        why="use `jax.core.ShapedArray`",
        module=True,
    ),
    *(Migration(
          source=f"jax.{old}",
          target=None,
          safety=Safety.DISPLAY,
          status=Status.REMOVED,
          since="jax 0.10.0",
          why="use `jax.device_put(x, sharding)` (see https://docs.jax.dev/en/latest/migrate_pmap.html)",
      )
      for old in ("device_put_replicated", "device_put_sharded")),
    Migration(
        source="jax.clear_backends",
        target=None,
        safety=Safety.DISPLAY,
        status=Status.REMOVED,
        since="jax 0.4.36",
        why="`jax.clear_caches()` clears the compilation caches; `jax.extend.backend.clear_backends()` re-initialises backends",
    ),
)

# Positional parameters of the deprecated pjit after `fun`, in order (from jax 0.8.2: before it, the 11th was
# `abstracted_axes`): `jax.jit` takes them by keyword only.
PJIT_POSITIONS_SINCE = (("jax", "0.8.2"),)
PJIT_PARAMETERS = ("in_shardings", "out_shardings", "static_argnums", "static_argnames", "donate_argnums",
                   "donate_argnames", "keep_unused", "device", "backend", "inline", "compiler_options")

# --- PML605 removed-keyword -----------------------------------------------------------------------


@dataclass(frozen=True)
class KeywordMigration:
    """A keyword a function no longer accepts and what replaces it: a row of PML605."""
    function: str  # canonical qualified name of the callee
    old: str  # the keyword old releases accepted
    new: str | None  # the installed keyword (None: passed positionally)
    since: str
    why: str
    requires: tuple[tuple[str, str], ...] = ()  # as Migration.requires: the releases that take the new form


REMOVED_KEYWORDS: tuple[KeywordMigration, ...] = (
    KeywordMigration(
        function="phiml.math.Solve",
        old="relative_tolerance",
        new="rel_tol",
        since="PhiFlow 2.3",
        why="PhiFlow 2.0-2.2 documented both as the tolerance max(relative_tolerance * norm(y), absolute_tolerance); "
            "the installed `Solve` documents rel_tol/abs_tol with the same formula",
        requires=(("phi", "2.3.0"),),
    ),
    KeywordMigration(
        function="phiml.math.Solve",
        old="absolute_tolerance",
        new="abs_tol",
        since="PhiFlow 2.3",
        why="PhiFlow 2.0-2.2 documented both as the tolerance max(relative_tolerance * norm(y), absolute_tolerance); "
            "the installed `Solve` documents rel_tol/abs_tol with the same formula",
        requires=(("phi", "2.3.0"),),
    ),
    KeywordMigration(
        function="phiml.math.solve_linear",
        old="f_args",
        new=None,
        since="PhiFlow 2.3",
        why="PhiFlow 2.0-2.2 took `f_args: tuple` and called `f(x, *f_args)`; the installed solve_linear takes "
            "`*f_args` and unpacks a single tuple argument (`f_args[0] if len(f_args) == 1 and isinstance(f_args[0], "
            "tuple)`), so the same tuple passed by position calls `f(x, *f_args)` again; by keyword it would be "
            "handed to `f` as a keyword argument named `f_args`",
        requires=(("phi", "2.3.0"),),
    ),
    KeywordMigration(
        function="phiml.math.iterate",
        old="f",
        new="map_function",
        since="PhiML 1.6",
        why="the parameter was renamed; position and meaning are unchanged",
        requires=(("phiml", "1.6.0"), ("phi", "3.0.0")),
    ),
)
# Functions whose old and installed signatures were compared and have no removed keyword at all.
UNCHANGED_KEYWORDS = ("phiml.math.jit_compile", "phiml.math.jit_compile_linear", "phiml.math.custom_gradient",
                      "phiml.math.minimize", "phiml.math.solve_nonlinear", "phiml.math.gradient", "phiml.math.jacobian")
# PhiFlow 2.0-2.2 `Solve(method, relative_tolerance, absolute_tolerance, max_iterations, x0, ...)` vs the installed
# `Solve(method, rel_tol, abs_tol, x0, max_iterations, ...)`: a fourth positional argument changed meaning.
OLD_SOLVE_POSITIONAL = ("method", "relative_tolerance", "absolute_tolerance", "max_iterations", "x0", "suppress")

TABLES: dict[str, tuple[Migration, ...]] = {
    "PML601": FUNCTIONAL_GRADIENT,
    "PML602": PHI_MATH,
    "PML603": JAX_TREE,
    "PML604": JAX_REMOVED,
}

# `from M import *` of PhiFlow / PhiML binds these names (only those the migrations resolve; each
# checked against the installed modules by tests/test_migrations.py). PhiFlow 3's `math` is phiml.math.
_PHIML_STAR = {"math": "phiml.math", "functional_gradient": "phiml.functional_gradient", "gradient": "phiml.gradient"}
STAR: dict[str, dict[str, str]] = {
    "phiml": _PHIML_STAR,
    **{m: {"math": "phiml.math", "functional_gradient": f"{m}.functional_gradient", "gradient": f"{m}.gradient"}
       for m in ("phi.flow", "phi.jax.flow", "phi.torch.flow", "phi.tf.flow")},
    "phi.math": {**{n: f"phi.math.{n}" for n in (*PHI_MATH_ALIASES, *PHI_MATH_ALIASES.values())},
                 "functional_gradient": "phi.math.functional_gradient", "gradient": "phi.math.gradient"},
    "phiml.math": {n: f"phiml.math.{n}" for n in (*PHI_MATH_ALIASES.values(), "gradient")},
}
# Modules that are another module under a second name (checked by the tests): normalised before lookup.
MODULE_ALIASES = tuple((f"{m}.math.", "phiml.math.") for m in ("phi.flow", "phi.jax.flow", "phi.torch.flow", "phi.tf.flow"))
