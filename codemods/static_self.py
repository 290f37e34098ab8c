"""PML506 static-self."""
from __future__ import annotations

import libcst as cst

from rewriter.analysis.apis import Kind
from rewriter.analysis.jit import assigned_value
from rewriter.analysis.transforms import match_transform, positional_params, static_params
from rewriter.codemod import Codemod, Example, Unchanged, dedented
from rewriter.findings import Safety

from ._loop_keys import walk

CONSTRUCTION = frozenset({"__init__", "__post_init__", "__new__", "__setstate__"})


class StaticSelf(Codemod):
    """A method jitted with `self` static (`@partial(jax.jit, static_argnums=0)`, `static_argnames='self'`)
    is keyed on `hash(self)` — for an ordinary class, its identity — and every attribute read through
    `self` is baked into the trace as a constant. Change an attribute after the first call and the cached
    trace silently keeps the old value: the classic example prints `10` twice after `W.x = 9`.

    Reported where the class (or code holding an instance) assigns attributes after construction.
    Classes that define `__hash__` are left alone: a hash over the fields makes jax trace again when
    they change. Fixes: pass the changing values as arguments, make the class a pytree
    (`jax.tree_util.register_pytree_node_class`, `equinox.Module`), or define `__hash__`/`__eq__` over
    the fields the method reads.
    """

    CODE = "PML506"
    NAME = "static-self"
    SUMMARY = "a method jitted with `self` static, on a class whose attributes change: the trace keeps the old values"
    SAFETY = Safety.DISPLAY
    FIX_SAFETY = "Reported only: each fix changes the class's design (arguments, pytree, or hashing)."
    EXAMPLES = (
        Example(
            dedented("""
                class Scaler:
                    def __init__(self, k):
                        self.k = k

                    def set_k(self, k):
                        self.k = k

                    @partial(jax.jit, static_argnums=0)
                    def __call__(self, x):
                        return x * self.k
            """),
            None,
            note="pass `k` as an argument, or make the class a pytree",
            by_hand=dedented("""
                class Scaler:
                    def __init__(self, k):
                        self.k = k

                    def set_k(self, k):
                        self.k = k

                    def __call__(self, x):
                        return _scale(x, self.k)


                @jax.jit
                def _scale(x, k):
                    return x * k
            """),
        ),
        Unchanged(dedented("""
            class Scaler:
                def __init__(self, k):
                    self.k = k

                @partial(jax.jit, static_argnums=0)
                def __call__(self, x):
                    return x * self.k
        """), "attributes set only in the constructor"),
        Unchanged(dedented("""
            class Scaler:
                def __init__(self, k):
                    self.k = k

                def set_k(self, k):
                    self.k = k

                def __hash__(self):
                    return hash(self.k)

                def __eq__(self, other):
                    return isinstance(other, Scaler) and self.k == other.k

                @partial(jax.jit, static_argnums=0)
                def __call__(self, x):
                    return x * self.k
        """), "a class that hashes its fields"),
    )
    HAZARDS = ("include `self` in the list of `static_argnums`",)
    READS_FACTS = True
    TRIGGERS = (("static_argnums", "self"), ("static_argnames", "self"))

    @classmethod
    def ast_gate(cls, syntax) -> bool:
        """A jit-decorated def directly in a class body, and an attribute assigned after construction
        (`_mutations`): through `self` in a function other than the constructors, or through another name."""
        facts = syntax.facts
        return facts is not None and facts.jitted_methods and any(
            receiver != "self" or any(key not in CONSTRUCTION for key in keys if isinstance(key, str))
            for receiver, _, keys in facts.attribute_stores)

    def __init__(self, file) -> None:
        super().__init__(file)
        self._classes: list[cst.ClassDef] = []
        self._elsewhere: list[tuple[cst.Attribute, list]] | None = None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(node)

    def leave_Module(self, original_node: cst.Module) -> None:
        for cls in self._classes:
            methods = [s for s in cls.body.body if isinstance(s, cst.FunctionDef)]
            if any(m.name.value == "__hash__" for m in methods):
                continue
            jitted = [m for m in methods if self._self_static(m)]
            if not jitted:
                continue
            mutations = self._mutations(cls, methods)
            for method in jitted:
                written = {id(t) for t in _assigned_attributes(method.body)}
                read = {n.attr.value for n in walk(method.body) if isinstance(n, cst.Attribute) and id(n) not in written
                        and isinstance(n.value, cst.Name) and n.value.value == "self"}
                changed = [(attr, target, where) for attr, target, where in mutations if attr in read]
                if not changed:
                    continue
                attr = changed[0][0]
                self.report(method.name, f"`{cls.name.value}.{method.name.value}` is jitted with `self` static, and "
                                         f"`self.{attr}` changes later: the trace keeps the old value",
                            hint="pass it as an argument, make the class a pytree, or define `__hash__`/`__eq__` over "
                                 "the fields the method reads",
                            related=[(target, where) for _, target, where in changed])

    def _self_static(self, method: cst.FunctionDef) -> bool:
        params = positional_params(method)
        if not params or params[0] != "self":
            return False
        for decorator in method.decorators:
            transform = match_transform(self.file.analysis.names, decorator.decorator, (Kind.JIT,))
            if transform is not None and transform.framework == "jax":
                static = static_params(transform, method)
                return static is not None and "self" in static
        return False

    def _mutations(self, cls: cst.ClassDef, methods: list[cst.FunctionDef]) -> list[tuple[str, cst.Attribute, str]]:
        """(attribute, target, what it is there) for assignments to attributes after construction: in
        methods other than the constructors, and through names bound to an instance anywhere in the module."""
        out = []
        for method in methods:
            if method.name.value in CONSTRUCTION:
                continue
            for target in _assigned_attributes(method.body):
                if isinstance(target.value, cst.Name) and target.value.value == "self":
                    out.append((target.attr.value, target, f"`self.{target.attr.value}` is changed here, in `{method.name.value}`"))
        for target, values in self._assigned_elsewhere():
            if values and all(isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value == cls.name.value
                              for v in values):
                out.append((target.attr.value, target, f"`{self.file.code(target)}` is changed here"))
        return out

    def _assigned_elsewhere(self) -> list[tuple[cst.Attribute, list]]:
        """Attributes assigned through a name other than `self`, anywhere in the module, each with
        the values that name is bound to: read once per file, not once per class (a module of many
        such classes was quadratic)."""
        if self._elsewhere is None:
            names = self.file.analysis.names
            self._elsewhere = []
            for target in _assigned_attributes(self.file.module):
                if isinstance(target.value, cst.Name) and target.value.value != "self":
                    values = [assigned_value(names, getattr(a, "node", None)) for a in names.assignments(target.value)]
                    self._elsewhere.append((target, values))
        return self._elsewhere


def _assigned_attributes(node: cst.CSTNode) -> list[cst.Attribute]:
    out = []
    for n in walk(node):
        targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else \
            [n.target] if isinstance(n, (cst.AugAssign, cst.AnnAssign)) else []
        out.extend(t for t in targets if isinstance(t, cst.Attribute))
    return out
