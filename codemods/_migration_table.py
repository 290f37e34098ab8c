"""The legacy-migration table (PML6xx) and the machinery the migration codemods share.

Every row was built from the *installed* libraries (phiml 1.16.1, phiflow 3.4, jax 0.10.2) and from
the releases the old code was written for (PhiFlow 2.0-2.4 `phi/math`, PhiML 1.0-1.15, jax 0.3-0.6
sources and CHANGELOG.md). `tests/test_migrations.py` re-checks every row against what is installed:
each target exists (import + getattr), each source is really gone (AttributeError / ImportError),
deprecated (warns), or a compatibility alias that *is* the target object.

A reference is matched by its qualified name (libcst scopes), never by spelling: `jax.tree_map`,
`import jax as j; j.tree_map`, `from jax import tree_map`, and PhiFlow's `from phi.flow import *`
(whose `math` is `phiml.math` since PhiFlow 3) all resolve to the same row; a user function or a
local variable that happens to be called `tree_map` resolves to something else and is left alone.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import ClassVar, Sequence

import libcst as cst

from rewriter.analysis.names import dotted
from rewriter.codemod import Codemod, Replace
from rewriter.emit.spelling import Spelling
from rewriter.findings import Safety, Severity

from ._shared import replacement_in_place


class Status(str, enum.Enum):
    REMOVED = "removed"  # AttributeError / ImportError on the installed version
    DEPRECATED = "deprecated"  # still present on the installed version, warns when used
    ALIAS = "alias"  # present only as a compatibility alias: the very object the target names


@dataclass(frozen=True)
class Migration:
    source: str  # the legacy qualified name
    target: str | None  # what replaces it (None: reported with the manual fix, never rewritten)
    safety: Safety  # of the automatic fix (DISPLAY when there is none)
    status: Status
    since: str  # the release that removed / deprecated it
    why: str  # the evidence that the target means the same (or what differs)
    value: tuple[str, str] | None = None  # the replacement is a value: ("neg_attr", "inf") / ("literal", "-0.0")
    annotation_only: bool = False  # the fix is only offered where the reference is a type annotation
    module: bool = False  # the source is a whole module: reported at its imports

    @property
    def name(self) -> str:
        return self.source.rsplit(".", 1)[1]

    @property
    def severity(self) -> Severity:
        return {Status.REMOVED: Severity.ERROR, Status.DEPRECATED: Severity.WARNING, Status.ALIAS: Severity.INFO}[self.status]

    def describe(self, spelled: str | None = None) -> str:
        """What became of the name, in a few words: "`jnp.product` was removed in jax 0.4.16"."""
        name = f"`{spelled or self.source}`"
        if self.status is Status.REMOVED:
            if re.fullmatch(r"\S+ [0-9.]+", self.since):
                return f"{name} was removed in {self.since}"
            return f"{name} was removed ({self.since})" if "removed" in self.since else f"{name} does not exist ({self.since})"
        if self.status is Status.DEPRECATED:
            return f"{name} is deprecated since {self.since}"
        return f"{name} is only a compatibility alias ({self.since})"

    def by_hand(self) -> str:
        """What to write instead, where the fix is not made (a `help:` hint)."""
        if self.target is None and self.value is None or self.annotation_only:
            return self.why
        return f"use `{self.replacement}`"

    @property
    def replacement(self) -> str:
        if self.value is None:
            return self.target or ""
        return {"neg_attr": f"-{self.target}", "literal": self.value[1]}[self.value[0]]


S, U, D = Safety.SAFE, Safety.UNSAFE, Safety.DISPLAY
R, DEP, A = Status.REMOVED, Status.DEPRECATED, Status.ALIAS

# --- PML601 functional-gradient -------------------------------------------------------------------
_FG_WHY = ("the installed phiflow 3.4 defines `functional_gradient = gradient`; PhiFlow 2.3-2.4's functional_gradient was "
           "gradient's code, with the same parameters and defaults")
FUNCTIONAL_GRADIENT: tuple[Migration, ...] = (
    Migration("phiml.math.functional_gradient", "phiml.math.gradient", S, R, "PhiML 1.0-1.16: never part of phiml.math", _FG_WHY),
    Migration("phi.math.functional_gradient", "phi.math.gradient", S, A, "phiflow 3.4: `functional_gradient = gradient`", _FG_WHY),
    Migration("phiml.functional_gradient", "phiml.gradient", S, A, "phiml 1.16: `gradient as functional_gradient`", _FG_WHY),
    *(Migration(f"{m}.functional_gradient", f"{m}.gradient", S, A, "phiflow 3.4 re-exports phiml's alias", _FG_WHY)
      for m in ("phi.flow", "phi.jax.flow", "phi.torch.flow", "phi.tf.flow")),
)
# Gradient functions whose `wrt` given by position is deprecated in the installed phiml (SyntaxWarning
# "Specifying wrt by position is deprecated"): positions are mapped to parameter names.
GRADIENT_FUNCTIONS = frozenset({
    "phiml.math.gradient", "phiml.math.jacobian", "phi.math.gradient", "phi.math.jacobian", "phiml.gradient",
    *(m.source for m in FUNCTIONAL_GRADIENT), *(m.target for m in FUNCTIONAL_GRADIENT),
})

# --- PML602 phi-math-alias ------------------------------------------------------------------------
_ALIASES = {  # phi.math 3.4 keeps these four names as aliases of phiml.math functions (phi/math/__init__.py)
    "divide_no_nan": "safe_div",
    "isfinite": "is_finite",
    "vec_abs": "vec_length",
}
PHI_MATH: tuple[Migration, ...] = (
    *(Migration(f"phiml.math.{old}", f"phiml.math.{new}", S, R, "PhiML 1.0-1.16: a PhiFlow 2 name phiml.math never had",
                f"phiflow 3.4 defines `phi.math.{old} = {new}`: the same function") for old, new in _ALIASES.items()),
    *(Migration(f"phi.math.{old}", f"phi.math.{new}", S, A, f"phiflow 3.4: `{old} = {new}`",
                f"phiflow 3.4 defines `phi.math.{old} = {new}`: the same function") for old, new in _ALIASES.items()),
    *(Migration(f"{m}.unpack_dims", f"{m}.unpack_dim", U, R, "PhiFlow 2.3",
                "PhiFlow 2.2 exported `unpack_dim as unpack_dims` (the same function); PhiFlow 2.0-2.1 had a separate "
                "`unpack_dims(value, dim, unpacked_dims)` whose Shape argument `unpack_dim` also accepts") for m in ("phiml.math", "phi.math")),
    *(Migration(f"{m}.degrees", f"{m}.degrees_to_radians", U, R, "PhiFlow 2.5",
                "PhiFlow 2.1-2.4 `degrees(deg)` converted degrees to radians with pi = 3.1415; `degrees_to_radians` uses "
                "the exact pi (results differ by ~3e-5 relative)") for m in ("phiml.math", "phi.math")),
    *(Migration(f"{m}.transpose", None, D, R, "PhiFlow 2.5",
                "PhiFlow 2 `transpose(x, axes)` reordered a native tensor (a no-op for PhiML tensors): use the backend's "
                "transpose on native tensors, or nothing (PhiML dims are named)") for m in ("phiml.math", "phi.math")),
    *(Migration(f"{m}.hessian", None, D, R, "PhiFlow 2.3",
                "PhiFlow 2.1-2.2 had `hessian(f, wrt, ...)`; phiml.math 1.16 has no hessian: nest `math.jacobian` of "
                "`math.gradient`, or use the backend's hessian") for m in ("phiml.math", "phi.math")),
    *(Migration(f"{m}.{old}", None, D, R, "PhiFlow 2.2",
                "PhiFlow 2.0-2.1 tape gradients (`record_gradients`/`gradients`) were removed: compute them with "
                "`math.gradient(f, wrt=...)`") for m in ("phiml.math", "phi.math") for old in ("gradients", "record_gradients")),
)

# --- PML603 jax-tree-api --------------------------------------------------------------------------
_TREE_WHY = ("jax <= 0.5.3 defined `jax.{old}` as `jax._src.tree_util.{util}`, the function behind `jax.tree_util.{util}`; "
             "`jax.tree.{new}` calls it with the same parameters (removed in jax 0.6.0, CHANGELOG)")
JAX_TREE: tuple[Migration, ...] = (
    *(Migration(f"jax.{old}", f"jax.tree.{new}", S, R, "jax 0.6.0", _TREE_WHY.format(old=old, util=old, new=new))
      for old, new in (("tree_map", "map"), ("tree_leaves", "leaves"), ("tree_flatten", "flatten"),
                       ("tree_unflatten", "unflatten"), ("tree_structure", "structure"), ("tree_transpose", "transpose"))),
    Migration("jax.treedef_is_leaf", "jax.tree_util.treedef_is_leaf", S, R, "jax 0.6.0",
              "jax <= 0.5.3 defined `jax.treedef_is_leaf` as `jax._src.tree_util.treedef_is_leaf`, which "
              "`jax.tree_util.treedef_is_leaf` is (CHANGELOG 0.6.0)"),
    Migration("jax.tree_multimap", "jax.tree.map", S, R, "jax 0.3.16",
              "`tree_multimap` was a deprecated alias forwarding to `tree_map` (CHANGELOG 0.3.16: \"a direct replacement\")"),
    Migration("jax.tree_util.tree_multimap", "jax.tree_util.tree_map", S, R, "jax 0.3.16",
              "`tree_multimap` was a deprecated alias forwarding to `tree_map` (CHANGELOG 0.3.16: \"a direct replacement\")"),
    Migration("jax.tree_util.build_tree", None, D, R, "jax 0.6.0 deprecated, removed by 0.10",
              "`build_tree(treedef, xs)` took a nested structure of children: rebuild with `jax.tree.unflatten(treedef, leaves)`"),
    Migration("jax.tree_util.register_keypaths", None, D, R, "jax 0.4.24",
              "key paths are built in: register the class with `jax.tree_util.register_pytree_with_keys`"),
)

# --- PML604 jax-removed-api -----------------------------------------------------------------------
_JNP_ALIAS = "jax <= 0.4.x `jax/numpy/__init__.py` defined `{old}` as `{new}` itself (deprecated {dep}, removed {rem})"
JAX_REMOVED: tuple[Migration, ...] = (
    *(Migration(f"jax.numpy.{old}", f"jax.numpy.{new}", S, R, f"jax {rem}", _JNP_ALIAS.format(old=old, new=new, dep=dep, rem=rem))
      for old, new, dep, rem in (("alltrue", "all", "0.4.12", "0.4.16"), ("sometrue", "any", "0.4.12", "0.4.16"),
                                 ("product", "prod", "0.4.12", "0.4.16"), ("cumproduct", "cumprod", "0.4.12", "0.4.16"),
                                 ("row_stack", "vstack", "0.4.16", "0.4.24"), ("round_", "round", "0.4.32", "0.4.38"))),
    Migration("jax.numpy.NINF", "jax.numpy.inf", S, R, "jax 0.4.24", "`NINF` was the float `-inf` (CHANGELOG: \"use -jax.numpy.inf\")",
              value=("neg_attr", "inf")),
    Migration("jax.numpy.NZERO", None, S, R, "jax 0.4.24", "`NZERO` was the float `-0.0`", value=("literal", "-0.0")),
    Migration("jax.numpy.PZERO", None, S, R, "jax 0.4.24", "`PZERO` was the float `0.0`", value=("literal", "0.0")),
    Migration("jax.numpy.fix", "jax.numpy.trunc", S, R, "jax 0.9.0 deprecated, removed 0.10.0",
              "`fix(x)` was `where(x >= 0, floor(x), ceil(x))`, i.e. rounding towards zero; CHANGELOG 0.9.0: "
              "\"jax.numpy.trunc is a drop-in replacement\""),
    Migration("jax.numpy.trapz", "jax.numpy.trapezoid", U, R, "jax 0.4.24",
              "a separate implementation of the same trapezoid rule (same parameters y, x, dx, axis): results may differ in rounding"),
    Migration("jax.numpy.in1d", None, D, R, "jax 0.4.24",
              "`in1d(a, b)` flattened its result: use `jnp.isin(a, b).ravel()`"),
    Migration("jax.numpy.issubsctype", None, D, R, "jax 0.4.24", "use `jnp.issubdtype(jnp.result_type(x), t)`"),
    Migration("jax.numpy.DeviceArray", "jax.Array", S, R, "jax 0.4.14", "`jax.Array` is the array type (use it in annotations; "
              "`isinstance` differs: `jax.Array` also matches tracers)", annotation_only=True),
    *(Migration(f"jax.random.{old}", "jax.Array", S, R, "jax 0.4.24",
                "CHANGELOG 0.4.16: \"Use jax.Array for annotations, and jax.dtypes.issubdtype(arr.dtype, jax.dtypes.prng_key) "
                "for runtime detection of typed prng keys\"", annotation_only=True) for old in ("KeyArray", "PRNGKeyArray")),
    Migration("jax.abstract_arrays.ShapedArray", "jax.core.ShapedArray", S, R, "jax 0.4.17",
              "`jax.abstract_arrays.ShapedArray` was `jax._src.core.ShapedArray`, which `jax.core.ShapedArray` is"),
    *(Migration(f"jax.ad_checkpoint.{old}", "jax.checkpoint", S, R, "jax 0.8.2 deprecated, removed 0.10.0",
                f"`jax.ad_checkpoint.{old}` was `jax._src.ad_checkpoint.checkpoint`, which `jax.checkpoint` is") for old in ("checkpoint", "remat")),
    Migration("jax.lax.tie_in", None, S, R, "jax 0.4.29", "`tie_in(x, y)` returned `y` (a no-op since jax 0.2.0): the call is "
              "replaced by its second argument when the first has no side effects"),
    Migration("jax.experimental.pjit.pjit", "jax.jit", U, DEP, "jax 0.8.0 (\"Please use jax.jit instead\")",
              "both build the same jit wrapper, but `pjit` also picks up shardings from an enclosing `with mesh:` "
              "(`use_resource_env=True`), and `jax.jit` takes everything after the function by keyword only"),
    Migration("jax.experimental.host_callback", None, D, R, "jax 0.4.26 deprecated; its APIs removed in 0.4.35, the module in 0.8",
              "use `jax.debug.callback` (id_tap/id_print), `jax.pure_callback` or `jax.experimental.io_callback` (call)",
              module=True),
    Migration("jax.abstract_arrays", None, D, R, "jax 0.4.17", "use `jax.core.ShapedArray`", module=True),
    *(Migration(f"jax.{old}", None, D, R, "jax 0.10.0",
                "use `jax.device_put(x, sharding)` (see https://docs.jax.dev/en/latest/migrate_pmap.html)")
      for old in ("device_put_replicated", "device_put_sharded")),
    Migration("jax.clear_backends", None, D, R, "jax 0.4.36",
              "`jax.clear_caches()` clears the compilation caches; `jax.extend.backend.clear_backends()` re-initialises backends"),
)

# Positional parameters of the deprecated pjit after `fun`, in order: `jax.jit` takes them by keyword only.
PJIT_PARAMETERS = ("in_shardings", "out_shardings", "static_argnums", "static_argnames", "donate_argnums",
                   "donate_argnames", "keep_unused", "device", "backend", "inline", "compiler_options")

# --- PML605 removed-keyword -----------------------------------------------------------------------


@dataclass(frozen=True)
class KeywordMigration:
    function: str  # canonical qualified name of the callee
    old: str  # the keyword old releases accepted
    new: str | None  # the installed keyword (None: passed positionally)
    since: str
    why: str


REMOVED_KEYWORDS: tuple[KeywordMigration, ...] = (
    KeywordMigration("phiml.math.Solve", "relative_tolerance", "rel_tol", "PhiFlow 2.3",
                     "PhiFlow 2.0-2.2 documented both as the tolerance max(relative_tolerance * norm(y), absolute_tolerance); "
                     "the installed `Solve` documents rel_tol/abs_tol with the same formula"),
    KeywordMigration("phiml.math.Solve", "absolute_tolerance", "abs_tol", "PhiFlow 2.3",
                     "PhiFlow 2.0-2.2 documented both as the tolerance max(relative_tolerance * norm(y), absolute_tolerance); "
                     "the installed `Solve` documents rel_tol/abs_tol with the same formula"),
    KeywordMigration("phiml.math.solve_linear", "f_args", None, "PhiFlow 2.3",
                     "PhiFlow 2.0-2.2 took `f_args: tuple` and called `f(x, *f_args)`; the installed solve_linear takes "
                     "`*f_args` and unpacks a single tuple argument (`f_args[0] if len(f_args) == 1 and isinstance(f_args[0], "
                     "tuple)`), so the same tuple passed by position calls `f(x, *f_args)` again; by keyword it would be "
                     "handed to `f` as a keyword argument named `f_args`"),
    KeywordMigration("phiml.math.iterate", "f", "map_function", "PhiML 1.6",
                     "the parameter was renamed; position and meaning are unchanged"),
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
    "phi.math": {**{n: f"phi.math.{n}" for n in (*_ALIASES, *_ALIASES.values())},
                 "functional_gradient": "phi.math.functional_gradient", "gradient": "phi.math.gradient"},
    "phiml.math": {n: f"phiml.math.{n}" for n in (*_ALIASES.values(), "gradient")},
}
# Modules that are another module under a second name (checked by the tests): normalised before lookup.
MODULE_ALIASES = tuple((f"{m}.math.", "phiml.math.") for m in ("phi.flow", "phi.jax.flow", "phi.torch.flow", "phi.tf.flow"))


def normalise(name: str) -> str:
    for old, new in MODULE_ALIASES:
        if name.startswith(old):
            return new + name[len(old):]
    return name


# --- resolution -----------------------------------------------------------------------------------

def star_name(file, node: cst.BaseExpression) -> str | None:
    """What `node` (a Name/Attribute chain whose root is not bound in the file) denotes through a
    module-level star import of the STAR table, else None."""
    text = dotted(node)
    names = file.analysis.names
    if text is None or not names.star_modules:
        return None
    head, _, rest = text.partition(".")
    root = node
    while isinstance(root, cst.Attribute):
        root = root.value
    scope = names.scope(root)
    if scope is None or head in scope:
        return None  # bound in the file (or a builtin): not from the star import
    for module in reversed(names.star_modules):
        if module not in STAR:
            return None  # a star import whose exports are not known may bind it
        target = STAR[module].get(head)
        if target:
            return target + ("." + rest if rest else "")
    return None


def resolve(file, node: cst.BaseExpression) -> tuple[str | None, bool]:
    """(the one qualified name `node` denotes, whether it came through a star import)."""
    names = file.analysis.names
    scope = names.scope(node)
    if scope is None:
        return None, False
    found = {q.name for q in scope.get_qualified_names_for(node)}
    if found:
        return (normalise(found.pop()), False) if len(found) == 1 else (None, False)
    star = star_name(file, node)
    return (normalise(star), True) if star else (None, False)


def is_store(parent: cst.CSTNode | None, node: cst.CSTNode) -> bool:
    """`node` is assigned or deleted (`jax.tree_map = ...`), not read."""
    if isinstance(parent, (cst.AssignTarget, cst.Del, cst.AsName)):
        return True
    if isinstance(parent, (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor)):
        return parent.target is node
    return False


def in_annotation(file, node: cst.CSTNode) -> bool:
    current = node
    while current is not None and not isinstance(current, (cst.BaseStatement, cst.Module)):
        if isinstance(current, cst.Annotation):
            return True
        current = file.analysis.names.parent(current)
    return False


def chain(base: cst.BaseExpression, parts: Sequence[str]) -> cst.BaseExpression:
    for part in parts:
        base = cst.Attribute(base, cst.Name(part))
    return base


def import_alias(name: str, local: str) -> cst.ImportAlias:
    """`name as local` (or `name` when they agree)."""
    return cst.ImportAlias(name=cst.Name(name), asname=None if name == local else cst.AsName(cst.Name(local)))


def module_node(dotted_name: str) -> cst.Attribute | cst.Name:
    parts = dotted_name.split(".")
    return chain(cst.Name(parts[0]), parts[1:])  # type: ignore[return-value]


# --- the table-driven codemod ---------------------------------------------------------------------

class CallCollector(Codemod):
    """Keeps in `self._calls` the calls that may be of a function whose last name is in CALLS: by
    spelling, or through an import alias (no metadata needed; the subclass resolves them later)."""

    CALLS: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, file) -> None:
        super().__init__(file)
        self._calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        if name in self.CALLS or isinstance(func, cst.Name) and any(
                q.rsplit(".", 1)[-1] in self.CALLS for q in self.file.analysis.names.imported.get(name, ())):
            self._calls.append(node)


class TableMigration(CallCollector):
    """Rewrites references to the sources of `MIGRATIONS` (a table above) into their targets.

    Forms: an attribute chain (`jax.tree_map`, `j.tree_map`, `jnp.NINF`, `math.divide_no_nan` under
    `from phi.flow import *`) is rewritten where it is read; a `from M import old [as a]` import is
    rewritten to import the target under the same local name, so the rest of the file is untouched; a
    bare name bound by a star import is renamed when the star import also exports the new name.
    """

    MIGRATIONS: ClassVar[tuple[Migration, ...]] = ()

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """Some reference or import denotes a source through the file's imports (`jax.tree_map`,
        `from jax.numpy import NINF`, `jax.experimental.host_callback.call`); under a star import,
        some identifier is a source's last name. Words in comments and strings do not count."""
        identifiers = syntax.identifiers
        if cls._gate_names().isdisjoint(identifiers.names):
            return False
        if identifiers.star_imports:
            return True
        sources = cls._gate_sources()
        for name in identifiers.qualified:
            name = normalise(name)
            parts = name.split(".")
            if any(".".join(parts[:i]) in sources for i in range(2, len(parts) + 1)):
                return True
        return False

    @classmethod
    def _gate_sources(cls) -> frozenset[str]:
        if "_GATE_SOURCES" not in cls.__dict__:
            cls._GATE_SOURCES = frozenset(m.source for m in cls.MIGRATIONS)
        return cls._GATE_SOURCES

    @classmethod
    def _gate_names(cls) -> frozenset[str]:
        if "_GATE_NAMES" not in cls.__dict__:
            cls._GATE_NAMES = frozenset(m.name for m in cls.MIGRATIONS)
        return cls._GATE_NAMES

    def __init__(self, file) -> None:
        super().__init__(file)
        self._by_source = {m.source: m for m in self.MIGRATIONS}
        self._modules = {m.source: m for m in self.MIGRATIONS if m.module}
        self._last = {m.name for m in self.MIGRATIONS if not m.module}
        self._candidates: list[cst.BaseExpression] = []

    # -- collecting (no metadata needed) -----------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in self._last:
            self._candidates.append(node)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self._last:
            self._candidates.append(node)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted(alias.name) or ""
            migration = self._module_for(full)
            if migration is not None:
                self._report_module(alias, full, migration)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = dotted(node.module) or ""
        migration = self._module_for(module)
        if migration is not None:
            self._report_module(node, module, migration)
            return
        for alias in node.names:
            full = normalise(f"{module}.{dotted(alias.name)}")
            if full in self._modules:
                self._report_module(alias, full, self._modules[full])
            elif full in self._by_source:
                self._import_from(node, alias, module, self._by_source[full])

    def leave_Module(self, original_node: cst.Module) -> None:
        names = self.file.analysis.names
        for node in self._candidates:
            parent = names.parent(node)
            if isinstance(parent, cst.Attribute) and parent.attr is node:
                continue  # the `tree_map` of `jax.tree_map`: the Attribute is the candidate
            if isinstance(node, cst.Name) and (isinstance(parent, (cst.ImportAlias, cst.Arg)) or names.scope(node) is None):
                continue  # an import's own name (handled at the import) or a keyword
            if is_store(parent, node):
                continue
            qualified, via_star = resolve(self.file, node)
            migration = self._by_source.get(qualified) if qualified else None
            if migration is None or migration.module:
                continue
            if isinstance(node, cst.Name) and not via_star:
                continue  # bound by `from M import old`: fixed at the import
            self.reference(node, parent, migration, via_star)

    # -- what each form becomes ---------------------------------------------------------------
    def _module_for(self, full: str) -> Migration | None:
        for source, migration in self._modules.items():
            if full == source or full.startswith(source + "."):
                return migration
        return None

    def _report_module(self, node: cst.CSTNode, full: str, migration: Migration) -> None:
        self.report(node, f"{migration.describe(full)}: importing it fails", hint=migration.why,
                    note="not rewritten: no equivalent module", severity=migration.severity)

    def message(self, migration: Migration, spelled: str) -> str:
        """What became of the name as spelled here; what it is now is the fix title or the hint."""
        return migration.describe(spelled)

    def refusal(self, migration: Migration) -> str:
        """Why a read of the name is reported without a fix (`note:`), when the table says it."""
        return "not rewritten: no equivalent with the same meaning" if migration.safety is Safety.DISPLAY else ""

    def reference(self, node: cst.BaseExpression, parent, migration: Migration, via_star: bool) -> None:
        """Report and fix one read of a legacy name (an Attribute, or a Name from a star import)."""
        spelled = self.file.code(node)
        message = self.message(migration, spelled)
        if migration.target is None and migration.value is None:
            self.report(node, message, hint=migration.by_hand(), note=self.refusal(migration), severity=migration.severity)
            return
        if migration.annotation_only and not in_annotation(self.file, node):
            self.report(node, message, hint=migration.by_hand(), note="not rewritten: the fix is only made in annotations",
                        severity=migration.severity)
            return
        new, imports = self.replacement(node, migration, via_star)
        if new is None:
            self.report(node, message, hint=migration.by_hand(), note="not rewritten: the new name is not reachable here",
                        severity=migration.severity)
            return
        self.report(node, message, edits=[Replace(node, self.in_place(parent, node, new))], safety=migration.safety,
                    imports=imports, severity=migration.severity, note=migration.why if migration.safety is Safety.UNSAFE else "",
                    fix_description=f"use `{self.file.module.code_for_node(new)}`")

    def in_place(self, parent, node, new: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(new, cst.UnaryOperation) and (
                isinstance(parent, cst.UnaryOperation)
                or isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Power) and parent.left is node
                or isinstance(parent, (cst.Attribute, cst.Subscript, cst.Call)) and getattr(parent, "value", getattr(parent, "func", None)) is node):
            return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return replacement_in_place(parent, node, new)

    def replacement(self, node: cst.BaseExpression, migration: Migration, via_star: bool):
        """(the new expression, imports it needs) or (None, ())."""
        source_module = migration.source.rsplit(".", 1)[0]
        if migration.value is not None:
            kind, text = migration.value
            if kind == "literal":
                return (cst.UnaryOperation(cst.Minus(), cst.Float(text[1:])) if text.startswith("-") else cst.Float(text)), ()
            base = self._module_expression(node, source_module)
            if base is None:
                return None, ()
            return cst.UnaryOperation(cst.Minus(), cst.Attribute(base, cst.Name(text))), ()
        target = migration.target
        if isinstance(node, cst.Name):  # via a star import: the star import must export the new name too
            names = self.file.analysis.names
            module = next((m for m in reversed(names.star_modules) if node.value in STAR.get(m, {})), None)
            local = next((k for k, v in STAR.get(module, {}).items() if v == target), None)
            scope = names.scope(node)
            if local is None or scope is None or local in scope:
                return None, ()
            later = names.star_modules[names.star_modules.index(module) + 1:]
            if any(m not in STAR or local in STAR[m] and STAR[m][local] != target for m in later):
                return None, ()  # a later `import *` (of a module whose exports are not known) may rebind it
            return cst.Name(local), ()
        found = self._prefix_in_chain(node.value, target)
        if found is not None:
            base, rest = found
            return chain(base, rest), ()
        target_module, target_name = target.rsplit(".", 1)
        spelling = Spelling(self.file.analysis.names, self.file.analysis.identifiers)
        return spelling(target_module, target_name), tuple(spelling.imports)

    def _module_expression(self, node: cst.BaseExpression, module: str) -> cst.BaseExpression | None:
        if isinstance(node, cst.Attribute) and resolve(self.file, node.value)[0] == module:
            return node.value
        return None

    def _prefix_in_chain(self, expr: cst.BaseExpression, target: str):
        """(an expression in the chain `expr` that denotes a module containing `target`, the rest of the path)."""
        while True:
            qualified, _ = resolve(self.file, expr)
            if qualified and target.startswith(qualified + "."):
                return expr, target[len(qualified) + 1:].split(".")
            if not isinstance(expr, cst.Attribute):
                return None
            expr = expr.value

    def _import_from(self, node: cst.ImportFrom, alias: cst.ImportAlias, module: str, migration: Migration) -> None:
        """`from M import old [as a]`: import the target under the same local name."""
        local = alias.asname.name.value if alias.asname is not None else dotted(alias.name)
        message = self.message(migration, f"{module}.{dotted(alias.name)}")
        if migration.status is Status.REMOVED:
            message += ": importing it fails"
        if migration.target is None or migration.value is not None:
            self.report(alias, message, hint=migration.by_hand(), note="not rewritten: the import has no drop-in replacement",
                        severity=migration.severity)
            return
        if migration.annotation_only:
            self.report(alias, message, hint=migration.by_hand(), note="not rewritten: the fix is only made in annotations",
                        severity=migration.severity)
            return
        target_module, target_name = migration.target.rsplit(".", 1)
        new_alias = import_alias(target_name, local).with_changes(comma=alias.comma)
        caveat = migration.why if migration.safety is Safety.UNSAFE else ""
        if normalise(target_module + ".x") == normalise(module + ".x"):
            self.report(alias, message, edits=[Replace(alias, new_alias)], safety=migration.safety, severity=migration.severity,
                        fix_description=f"import `{target_name}` as `{local}`", note=caveat)
            return
        line = self.parent(node)
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or isinstance(node.names, cst.ImportStar):
            self.report(alias, message, hint=f"import `{target_name}` from `{target_module}`",
                        note="not rewritten: the import shares its line with other statements", severity=migration.severity)
            return
        moved = [a for a in node.names if self._moves(module, a) == target_module]
        if moved[0] is not alias:
            return  # one fix per statement and target module: reported with the first alias it moves
        kept = [a for a in node.names if a not in moved]
        statements = []
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            statements.append(line.with_changes(body=[node.with_changes(names=kept, lpar=node.lpar if len(kept) > 1 else None,
                                                                          rpar=node.rpar if len(kept) > 1 else None)]))
        new_names = []
        for a in moved:
            m = self._by_source[normalise(f"{module}.{dotted(a.name)}")]
            a_local = a.asname.name.value if a.asname is not None else dotted(a.name)
            new_names.append(import_alias(m.target.rsplit(".", 1)[1], a_local))
        new_line = cst.SimpleStatementLine(
            body=[cst.ImportFrom(module=module_node(target_module), names=new_names)],
            leading_lines=() if kept else line.leading_lines,
            trailing_whitespace=line.trailing_whitespace if not kept else cst.TrailingWhitespace(),
        )
        statements.append(new_line)
        rows = [self._by_source[normalise(f"{module}.{dotted(a.name)}")] for a in moved]
        self.report(alias, message, edits=[Replace(line, cst.FlattenSentinel(statements))], safety=min_safety([m.safety for m in rows]),
                    severity=migration.severity,
                    note="; ".join(dict.fromkeys(m.why for m in rows if m.safety is Safety.UNSAFE)),
                    fix_description=f"import {', '.join(f'`{self.file.module.code_for_node(a)}`' for a in new_names)} from `{target_module}`")

    def _moves(self, module: str, alias: cst.ImportAlias) -> str | None:
        """The module an imported name moves to (None: it stays, or is reported only)."""
        m = self._by_source.get(normalise(f"{module}.{dotted(alias.name)}"))
        if m is None or m.target is None or m.value is not None or m.annotation_only:
            return None
        target_module = m.target.rsplit(".", 1)[0]
        return None if normalise(target_module + ".x") == normalise(module + ".x") else target_module


def min_safety(safeties: Sequence[Safety]) -> Safety:
    for level in (Safety.DISPLAY, Safety.UNSAFE):
        if level in safeties:
            return level
    return Safety.SAFE
