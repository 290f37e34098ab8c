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

It is read from CPython's `ast` of the module (issue 45: one analysis, on `ast`), and answers for a
place of the file: `may_run(span)` holds unless the span lies in a region that cannot run. A rule on
libcst asks with the span it reports at. A file CPython cannot parse (a newer Python's syntax) has no
region that cannot run.
"""
from __future__ import annotations

import ast
from functools import cached_property

from ..findings import Span
from .ast_module import AstModule, within
from .ast_names import dotted
from .installed import has_attribute, is_module, module_exists, oldest_python, version
from .scope_model import BuiltinScope, QualifiedNameSource

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
# What a compatibility check is spelled with (the conditions and `try` forms below decide).
_COMPATIBILITY = ("hasattr(", "version_info", "ImportError", "ModuleNotFoundError")


class Reachability:
    def __init__(self, module: AstModule, targets=None) -> None:
        """`module`: the module as CPython reads it; `targets`: what the project runs
        (rewriter/project/targets.Targets), or None: the installed versions. Where a library's version
        differs, what its installed source binds decides nothing."""
        self.module = module
        self.targets = targets
        self._conditions: dict[int, bool | None] = {}
        self._holding: dict[str, bool] = {}  # a library -> `_holds` (each asks its version and compares it)

    def may_run(self, span: Span) -> bool:
        """False when `span` lies in a branch that provably cannot run on the installed versions."""
        return not any(within(span, dead) for dead in self.dead)

    # -- the regions that cannot run ---------------------------------------------------------------
    @cached_property
    def dead(self) -> list[Span]:
        code = self.module.code
        if "hasattr" not in code and "version_info" not in code and "try" not in code:
            return []  # (nothing to decide: no region can be dead)
        tree = self.module.tree
        if tree is None:
            return []
        regions: list[tuple[ast.AST, ast.AST]] = []  # (first node, last node) of each dead region
        for node in self.module.nodes(ast.If, ast.IfExp, ast.BoolOp, ast.Try):
            if isinstance(node, (ast.If, ast.IfExp)):
                value = self.condition(node.test)
                if value is False:
                    regions.append(_extent(node.body))
                elif value is True and node.orelse:  # (an `if` without `else` has none: [])
                    regions.append(_extent(node.orelse))
            elif isinstance(node, ast.BoolOp):
                for i in range(1, len(node.values)):
                    left = _combined(type(node.op), [self.condition(v) for v in node.values[:i]])
                    if left is (False if type(node.op) is ast.And else True):
                        regions.append((node.values[i], node.values[-1]))
                        break
            elif type(node) is ast.Try:
                regions.extend(self._dead_in_try(node))  # type: ignore[arg-type]
        module = self.module
        return [Span(*module.start(first), *module.end(last)) for first, last in regions]

    @cached_property
    def doubt(self) -> str:
        """Why no fix may be written in this module ("" : none may be refused for this reason): CPython
        cannot parse it (a newer Python's syntax, which libcst reads), and it has compatibility checks,
        whose branches that cannot run cannot then be told (fail closed)."""
        code = self.module.code
        if not any(word in code for word in _COMPATIBILITY) or self.module.tree is not None:
            return ""
        return "this Python cannot read the file's syntax, so which of its compatibility branches run cannot be told"

    @property
    def resolver(self):
        return self.module.names

    def _holds(self, module: str) -> bool:
        """The facts read from the installed package of `module` hold for the version the project runs."""
        if self.targets is None:
            return True
        root = module.split(".")[0]
        found = self._holding.get(root)
        if found is None:
            found = self._holding[root] = not self.targets.differs(root, version(root))
        return found

    def _has_attribute(self, module: str, name: str) -> bool | None:
        return has_attribute(module, name) if self._holds(module) else None

    def _module_exists(self, module: str) -> bool | None:
        return module_exists(module) if self._holds(module) else None

    # -- conditions ------------------------------------------------------------------------------
    def condition(self, test: ast.expr) -> bool | None:
        """The value of `test` on the installed versions, or None if it cannot be told."""
        key = id(test)
        if key not in self._conditions:
            self._conditions[key] = self._evaluate(test)
        return self._conditions[key]

    def _evaluate(self, test: ast.expr) -> bool | None:
        if isinstance(test, ast.UnaryOp) and type(test.op) is ast.Not:
            value = self.condition(test.operand)
            return None if value is None else not value
        if isinstance(test, ast.BoolOp):
            return _combined(type(test.op), [self.condition(v) for v in test.values])
        if isinstance(test, ast.Call):
            return self._hasattr(test)
        if isinstance(test, ast.Compare):
            return self._version_comparison(test)
        return None

    def _hasattr(self, call: ast.Call) -> bool | None:
        args = call.args
        if not (type(call.func) is ast.Name and call.func.id == "hasattr" and len(args) == 2 and not call.keywords
                and not any(type(a) is ast.Starred for a in args)
                and type(args[1]) is ast.Constant and type(args[1].value) is str):
            return None
        if any(not isinstance(a.scope, BuiltinScope) for a in self.resolver.assignments(call.func)):
            return None  # a `hasattr` of the file's own
        module = self.imported_module(args[0])
        return self._has_attribute(module, args[1].value) if module is not None else None

    def imported_module(self, expr: ast.expr) -> str | None:
        """The installed module `expr` denotes when its root name is only ever bound by imports
        (or a `*` import), else None: a parameter or a local called `jax` is not jax."""
        root = expr
        while type(root) is ast.Attribute:
            root = root.value
        if type(root) is not ast.Name or dotted(expr) is None:
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

    def _version_comparison(self, test: ast.Compare) -> bool | None:
        """`sys.version_info >= (3, 8)` and the like, decided when it holds, or fails, for every
        Python from `oldest_python()` on."""
        if len(test.ops) != 1:
            return None
        operator = type(test.ops[0]).__name__
        left, right = test.left, test.comparators[0]
        version = self._version_part(left)
        literal = _literal(right)
        if version is None:  # `(3, 8) <= sys.version_info`
            version, literal = self._version_part(right), _literal(left)
            operator = _MIRRORED.get(operator, operator)
        if version is None or literal is None or type(literal) is not type(version):
            return None
        oldest = version
        if operator in ("Gt", "GtE"):  # holds for all newer ones once it holds for the oldest
            return True if _COMPARE[operator](oldest, literal) else None
        if operator in ("Lt", "LtE"):
            return False if not _COMPARE[operator](oldest, literal) else None
        if operator in ("Eq", "NotEq") and isinstance(literal, tuple) and literal < oldest[: len(literal)]:
            return operator == "NotEq"  # an older version than any accepted one
        return None

    def _version_part(self, expr: ast.expr):
        """The oldest accepted value of `sys.version_info` (tuple), `[:n]` (tuple), `[0]`/`.major` (int)."""
        oldest = oldest_python()
        if not oldest or self.targets is not None and any(not self._holds(t.root) for t in self.targets.found):
            return None  # the project runs other releases of the packages, which may accept older Pythons
        if type(expr) is ast.Attribute and expr.attr == "major" and self._is_version_info(expr.value):
            return oldest[0]
        if type(expr) is ast.Subscript and self._is_version_info(expr.value):
            index = expr.slice
            if _int(index) == 0:
                return oldest[0]
            upper = _int(index.upper) if isinstance(index, ast.Slice) and index.lower is None and index.step is None else None
            if upper is not None and 0 < upper <= len(oldest):
                return oldest[:upper]
            return None
        if self._is_version_info(expr):
            return oldest
        return None

    def _is_version_info(self, expr: ast.expr) -> bool:
        text = dotted(expr)
        if text is None or not text.endswith("version_info"):
            return False  # decided by the spelling, before any scope is resolved
        scope = self.resolver.scope(expr)
        if scope is None:
            return False
        found = scope.get_qualified_names_for(expr)
        return bool(found) and all(q.name == "sys.version_info" and q.source is QualifiedNameSource.IMPORT for q in found)

    # -- try: imports -------------------------------------------------------------------------
    def _dead_in_try(self, node: ast.Try) -> list[tuple[ast.AST, ast.AST]]:
        """After an import of the body that certainly fails: the rest of the body and the `else:`; when
        the body is only imports that exist: the handlers of ImportError alone."""
        failing, all_exist = None, True
        for i, statement in enumerate(node.body):
            outcome = _import_outcome(statement, self._module_exists, self._has_attribute)
            if outcome is False:
                failing, all_exist = i, False
                break
            if outcome is None:
                all_exist = False
        out: list[tuple[ast.AST, ast.AST]] = []
        if failing is not None:
            if failing + 1 < len(node.body):
                out.append((node.body[failing + 1], node.body[-1]))
            if node.orelse:
                out.append(_extent(node.orelse))
        if all_exist:
            for handler in node.handlers:
                caught = _caught_names(handler)
                if caught is not None and caught <= _IMPORT_ERRORS:
                    out.append((handler, handler))
        return out


def _extent(part: list | ast.expr) -> tuple[ast.AST, ast.AST]:
    """The first and last node of a block (a statement's body) or of an expression (a branch of `a if c else b`)."""
    if isinstance(part, list):
        return part[0], part[-1]
    return part, part


def _combined(operator: type, values: list) -> bool | None:
    """`and`/`or` of decided values (None: cannot be told)."""
    if operator is ast.And:
        return False if False in values else True if all(v is True for v in values) else None
    return True if True in values else False if all(v is False for v in values) else None


def _import_outcome(statement: ast.stmt, module_exists, has_attribute) -> bool | None:
    """True: only imports that exist in the installed packages; False: an import that cannot
    succeed; None: anything else, or not known."""
    if type(statement) is ast.Import:
        outcome = True
        for alias in statement.names:
            exists = module_exists(alias.name)
            if exists is False:
                return False
            outcome = outcome and exists
        return outcome
    if type(statement) is ast.ImportFrom and not statement.level and statement.module is not None \
            and not any(alias.name == "*" for alias in statement.names):
        module = statement.module
        if module_exists(module) is False:
            return False
        outcome = True  # (decided by its names: a name found in an unknown module exists)
        for alias in statement.names:
            found = True if module_exists(f"{module}.{alias.name}") else has_attribute(module, alias.name)
            if found is False:
                return False
            outcome = outcome and found
        return outcome
    return None


def _caught_names(handler: ast.ExceptHandler) -> frozenset[str] | None:
    kind = handler.type
    if kind is None:
        return None
    elements = kind.elts if type(kind) is ast.Tuple else [kind]
    names = [e.id for e in elements if type(e) is ast.Name]
    return frozenset(names) if len(names) == len(elements) else None


def _int(node) -> int | None:
    """An int written as a literal (`True` is none)."""
    return node.value if type(node) is ast.Constant and type(node.value) is int else None


def _literal(node: ast.expr):
    value = _int(node)
    if value is not None:
        return value
    if isinstance(node, ast.Tuple) and node.elts:
        parts = [_int(e) for e in node.elts]
        return tuple(parts) if None not in parts else None
    return None


_MIRRORED = {"Lt": "Gt", "Gt": "Lt", "LtE": "GtE", "GtE": "LtE"}
_COMPARE = {"Lt": lambda a, b: a < b, "LtE": lambda a, b: a <= b, "Gt": lambda a, b: a > b, "GtE": lambda a, b: a >= b}
