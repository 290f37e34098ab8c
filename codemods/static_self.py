"""PML506 static-self."""
from __future__ import annotations

import ast

from rewriter.analysis.apis import Kind
from rewriter.analysis.ast_jit import assigned_value, match_transform, positional_params, static_params
from rewriter.ast_rule import AstRule
from rewriter.findings import Safety
from rewriter.rule import Example, Unchanged, dedented

CONSTRUCTION = frozenset({"__init__", "__post_init__", "__new__", "__setstate__"})


class StaticSelf(AstRule):
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
        if not syntax.spells(Kind.JIT):
            return False
        facts = syntax.facts
        return facts is not None and facts.jitted_methods and any(
            receiver != "self" or any(key not in CONSTRUCTION for key in keys if isinstance(key, str))
            for receiver, _, keys in facts.attribute_stores)

    def __init__(self, file) -> None:
        super().__init__(file)
        self._elsewhere: list[tuple[ast.Attribute, list]] | None = None

    def check(self) -> None:
        file = self.file
        classes = sorted(file.nodes(ast.ClassDef), key=lambda n: (n.lineno, n.col_offset))
        for cls in classes:
            methods = [s for s in cls.body if isinstance(s, _DEFS)]
            if any(m.name == "__hash__" for m in methods):
                continue
            jitted = [m for m in methods if self._self_static(m)]
            if not jitted:
                continue
            mutations = self._mutations(cls, methods)
            for method in jitted:
                written = {id(t) for t in _assigned_attributes(method.body)}
                read = {n.attr for n in _walk(method.body) if isinstance(n, ast.Attribute) and id(n) not in written
                        and isinstance(n.value, ast.Name) and n.value.id == "self"}
                changed = [(attr, target, where) for attr, target, where in mutations if attr in read]
                if not changed:
                    continue
                attr = changed[0][0]
                self.report(file.python.name_place(method),
                            f"`{cls.name}.{method.name}` is jitted with `self` static, and "
                            f"`self.{attr}` changes later: the trace keeps the old value",
                            hint="pass it as an argument, make the class a pytree, or define `__hash__`/`__eq__` over "
                                 "the fields the method reads",
                            related=[(target, where) for _, target, where in changed])

    def _self_static(self, method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        params = positional_params(method)
        if not params or params[0] != "self":
            return False
        for decorator in method.decorator_list:
            transform = match_transform(self.file.names, decorator, (Kind.JIT,))
            if transform is not None and transform.framework == "jax":
                static = static_params(transform, method)
                return static is not None and "self" in static
        return False

    def _mutations(self, cls: ast.ClassDef, methods: list) -> list[tuple[str, ast.Attribute, str]]:
        """(attribute, target, what it is there) for assignments to attributes after construction: in
        methods other than the constructors, and through names bound to an instance anywhere in the module."""
        out = []
        for method in methods:
            if method.name in CONSTRUCTION:
                continue
            for target in _assigned_attributes(method.body):
                if isinstance(target.value, ast.Name) and target.value.id == "self":
                    out.append((target.attr, target, f"`self.{target.attr}` is changed here, in `{method.name}`"))
        for target, values in self._assigned_elsewhere():
            if values and all(isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == cls.name
                              for v in values):
                out.append((target.attr, target, f"`{self.file.python.text(target)}` is changed here"))
        return out

    def _assigned_elsewhere(self) -> list[tuple[ast.Attribute, list]]:
        """Attributes assigned through a name other than `self`, anywhere in the module, each with
        the values that name is bound to: read once per file, not once per class (a module of many
        such classes was quadratic)."""
        if self._elsewhere is None:
            names = self.file.names
            self._elsewhere = []
            for target in _assigned_attributes(self.file.tree.body):
                if isinstance(target.value, ast.Name) and target.value.id != "self":
                    values = [assigned_value(names, getattr(a, "node", None)) for a in names.assignments(target.value)]
                    self._elsewhere.append((target, values))
        return self._elsewhere


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _walk(body: list[ast.stmt]):
    for statement in body:
        yield from ast.walk(statement)


def _assigned_attributes(body: list[ast.stmt]) -> list[ast.Attribute]:
    """The attributes assigned in `body` (any depth), latest written first, the order the rule has always
    named them in (its message names the first)."""
    out = []
    for n in _walk(body):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
        out.extend(t for t in targets if isinstance(t, ast.Attribute))
    return sorted(out, key=lambda t: (t.lineno, t.col_offset), reverse=True)
