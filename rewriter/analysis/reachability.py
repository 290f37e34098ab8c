"""Which code can run on the installed versions.

Compatibility code tests what is installed and keeps a branch for other releases:

    if hasattr(jax, "pure_callback"):        # true on the installed jax
        callback = jax.pure_callback
    else:                                     # never runs here
        import jax.experimental.host_callback as hcb

A finding in a branch that cannot run is noise, and a fix there would rewrite the fallback for the
old release into code that release does not have. So findings (and their fixes) are only reported
where `may_run` holds; `Codemod.report` asks, for every rule.

Decided, and only when the answer is certain:
- `hasattr(M, "name")` where M is an imported module of the installed packages: from the names its
  source binds (installed.has_attribute);
- `sys.version_info` (whole, sliced `[:n]`, `[0]` or `.major`) compared with literals: decided only
  when every Python the installed packages accept (`oldest_python()` and later) gives the same answer;
- `not`, `and`, `or` of those, in `if`/`elif`, conditional expressions and `and`/`or` operands;
- `try:` bodies: after an import that cannot succeed (the module or name does not exist in an
  installed package) the rest of the body and the `else:` cannot run; when the body is only imports
  that exist, handlers of ImportError / ModuleNotFoundError cannot run.
Anything else (a local named `jax`, `getattr`, version strings) is assumed to run.
"""
from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameSource

from .installed import has_attribute, is_module, module_exists, oldest_python, version
from .names import NameResolver, dotted
from .scopes import BuiltinScope

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


class Reachability:
    def __init__(self, resolver: NameResolver, targets=None) -> None:
        self.resolver = resolver
        # What the project runs (rewriter/project/targets.Targets), or None: the installed versions. Where a
        # library's version differs, what its installed source binds decides nothing.
        self.targets = targets
        self._conditions: dict[int, bool | None] = {}
        self._tries: dict[int, tuple[int | None, bool]] = {}

    def _holds(self, module: str) -> bool:
        """The facts read from the installed package of `module` hold for the version the project runs."""
        root = module.split(".")[0]
        return self.targets is None or not self.targets.differs(root, version(root))

    def _has_attribute(self, module: str, name: str) -> bool | None:
        return has_attribute(module, name) if self._holds(module) else None

    def _module_exists(self, module: str) -> bool | None:
        return module_exists(module) if self._holds(module) else None

    def may_run(self, node: cst.CSTNode) -> bool:
        """False when some enclosing branch provably cannot run on the installed versions."""
        child, parent = node, self.resolver.parent(node)
        while parent is not None:
            if self._dead_child(parent, child):
                return False
            child, parent = parent, self.resolver.parent(parent)
        return True

    def _dead_child(self, parent: cst.CSTNode, child: cst.CSTNode) -> bool:
        if isinstance(parent, (cst.If, cst.IfExp)):
            if child is parent.body:
                return self.condition(parent.test) is False
            if child is parent.orelse:
                return self.condition(parent.test) is True
        elif isinstance(parent, cst.BooleanOperation) and child is parent.right:
            left = self.condition(parent.left)
            return left is False if isinstance(parent.operator, cst.And) else left is True
        elif isinstance(parent, cst.Try):
            return self._dead_in_try(parent, child)
        elif isinstance(parent, cst.IndentedBlock):
            try_node = self.resolver.parent(parent)
            if isinstance(try_node, cst.Try) and try_node.body is parent:
                failing, _ = self._try_facts(try_node)
                return failing is not None and _index(parent.body, child) > failing
        return False

    # -- conditions ------------------------------------------------------------------------------
    def condition(self, test: cst.BaseExpression) -> bool | None:
        """The value of `test` on the installed versions, or None if it cannot be told."""
        key = id(test)
        if key not in self._conditions:
            self._conditions[key] = self._evaluate(test)
        return self._conditions[key]

    def _evaluate(self, test: cst.BaseExpression) -> bool | None:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            value = self.condition(test.expression)
            return None if value is None else not value
        if isinstance(test, cst.BooleanOperation):
            left, right = self.condition(test.left), self.condition(test.right)
            if isinstance(test.operator, cst.And):
                return False if False in (left, right) else True if left is right is True else None
            return True if True in (left, right) else False if left is right is False else None
        if isinstance(test, cst.Call):
            return self._hasattr(test)
        if isinstance(test, cst.Comparison):
            return self._version_comparison(test)
        return None

    def _hasattr(self, call: cst.Call) -> bool | None:
        args = call.args
        if not (isinstance(call.func, cst.Name) and call.func.value == "hasattr" and len(args) == 2
                and not any(a.keyword or a.star for a in args) and isinstance(args[1].value, cst.SimpleString)):
            return None
        if any(not isinstance(a.scope, BuiltinScope) for a in self.resolver.assignments(call.func)):
            return None  # a `hasattr` of the file's own
        module = self.imported_module(args[0].value)
        name = args[1].value.evaluated_value
        return self._has_attribute(module, name) if module is not None and isinstance(name, str) else None

    def imported_module(self, expr: cst.BaseExpression) -> str | None:
        """The installed module `expr` denotes when its root name is only ever bound by imports
        (or a `*` import), else None: a parameter or a local called `jax` is not jax."""
        root = expr
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name) or dotted(expr) is None:
            return None
        assignments = self.resolver.assignments(root)
        if any(type(a).__name__ != "ImportAssignment" for a in assignments):
            return None
        if not assignments and not self.resolver.star_modules:
            return None
        names = self.resolver.qualified_names(expr)
        if len(names) != 1:
            return None
        module = next(iter(names))
        return module if is_module(module) else None

    def _version_comparison(self, test: cst.Comparison) -> bool | None:
        """`sys.version_info >= (3, 8)` and the like, decided when it holds, or fails, for every
        Python from `oldest_python()` on."""
        if len(test.comparisons) != 1:
            return None
        target = test.comparisons[0]
        operator = type(target.operator).__name__
        left, right = test.left, target.comparator
        version = self._version_part(left)
        literal = _literal(right)
        if version is None:  # `(3, 8) <= sys.version_info`
            version, literal = self._version_part(right), _literal(left)
            operator = _MIRRORED.get(operator, operator)
        if version is None or literal is None or type(literal) is not type(version):
            return None
        oldest = version
        if operator in ("GreaterThan", "GreaterThanEqual"):  # holds for all newer ones once it holds for the oldest
            return True if _COMPARE[operator](oldest, literal) else None
        if operator in ("LessThan", "LessThanEqual"):
            return False if not _COMPARE[operator](oldest, literal) else None
        if operator in ("Equal", "NotEqual") and isinstance(literal, tuple) and literal < oldest[: len(literal)]:
            return operator == "NotEqual"  # an older version than any accepted one
        return None

    def _version_part(self, expr: cst.BaseExpression):
        """The oldest accepted value of `sys.version_info` (tuple), `[:n]` (tuple), `[0]`/`.major` (int)."""
        oldest = oldest_python()
        if not oldest or self.targets is not None and any(not self._holds(t.root) for t in self.targets.found):
            return None  # the project runs other releases of the packages, which may accept older Pythons
        if isinstance(expr, cst.Attribute) and expr.attr.value == "major" and self._is_version_info(expr.value):
            return oldest[0]
        if isinstance(expr, cst.Subscript) and self._is_version_info(expr.value) and len(expr.slice) == 1:
            index = expr.slice[0].slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.evaluated_value == 0:
                return oldest[0]
            if isinstance(index, cst.Slice) and index.lower is None and index.step is None \
                    and isinstance(index.upper, cst.Integer) and 0 < index.upper.evaluated_value <= len(oldest):
                return oldest[: index.upper.evaluated_value]
            return None
        if self._is_version_info(expr):
            return oldest
        return None

    def _is_version_info(self, expr: cst.BaseExpression) -> bool:
        text = dotted(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
        if text is None or not text.endswith("version_info"):
            return False  # decided by the spelling, before any scope is resolved
        scope = self.resolver.scope(expr)
        if scope is None:
            return False
        found = scope.get_qualified_names_for(expr)
        return bool(found) and all(q.name == "sys.version_info" and q.source is QualifiedNameSource.IMPORT for q in found)

    # -- try: imports -------------------------------------------------------------------------
    def _try_facts(self, node: cst.Try) -> tuple[int | None, bool]:
        """(index of the first body statement that certainly raises ImportError, whether the body is
        only imports that exist)."""
        key = id(node)
        if key not in self._tries:
            failing, all_exist = None, True
            for i, statement in enumerate(node.body.body):
                outcome = _import_outcome(statement, self._module_exists, self._has_attribute)
                if outcome is False:
                    failing, all_exist = i, False
                    break
                if outcome is None:
                    all_exist = False
            self._tries[key] = (failing, all_exist)
        return self._tries[key]

    def _dead_in_try(self, node: cst.Try, child: cst.CSTNode) -> bool:
        failing, all_exist = self._try_facts(node)
        if child is node.orelse:
            return failing is not None
        if isinstance(child, cst.ExceptHandler) and all_exist:
            caught = _caught_names(child)
            return caught is not None and caught <= _IMPORT_ERRORS
        return False


def _index(body, child) -> int:
    for i, statement in enumerate(body):
        if statement is child:
            return i
    return -1


def _import_outcome(statement: cst.BaseStatement, module_exists, has_attribute) -> bool | None:
    """True: only imports that exist in the installed packages; False: an import that cannot
    succeed; None: anything else, or not known."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    outcome = True
    for small in statement.body:
        if isinstance(small, cst.Import):
            for alias in small.names:
                exists = module_exists(dotted(alias.name) or "")
                if exists is False:
                    return False
                outcome = outcome and exists
        elif isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None \
                and not isinstance(small.names, cst.ImportStar):
            module = dotted(small.module) or ""
            exists = module_exists(module)
            if exists is False:
                return False
            for alias in small.names:
                name = dotted(alias.name) or ""
                found = True if module_exists(f"{module}.{name}") else has_attribute(module, name)
                if found is False:
                    return False
                outcome = outcome and found
        else:
            return None
    return outcome


def _caught_names(handler: cst.ExceptHandler) -> frozenset[str] | None:
    kind = handler.type
    if kind is None:
        return None
    elements = [e.value for e in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
    names = [e.value for e in elements if isinstance(e, cst.Name)]
    return frozenset(names) if len(names) == len(elements) else None


def _literal(node: cst.BaseExpression):
    if isinstance(node, cst.Integer):
        return node.evaluated_value
    if isinstance(node, cst.Tuple) and node.elements and all(isinstance(e.value, cst.Integer) for e in node.elements):
        return tuple(e.value.evaluated_value for e in node.elements)
    return None


_MIRRORED = {"LessThan": "GreaterThan", "GreaterThan": "LessThan", "LessThanEqual": "GreaterThanEqual",
             "GreaterThanEqual": "LessThanEqual"}
_COMPARE = {"LessThan": lambda a, b: a < b, "LessThanEqual": lambda a, b: a <= b,
            "GreaterThan": lambda a, b: a > b, "GreaterThanEqual": lambda a, b: a >= b}
