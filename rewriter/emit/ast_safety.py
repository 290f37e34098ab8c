"""What evaluating a branch unconditionally can do that the `if` prevented, whether it is worth a real
branch, and whether it is a bare number: decided on CPython's `ast` (issue 45; safety.py writes the guard).

`where` computes both branches. A branch the condition guarded may then divide by zero, take the square
root or logarithm of a negative number (forward values are still selected correctly, but the gradient of
the unselected branch is NaN/inf and `0 * NaN = NaN` poisons the selected one), call something that
raises, or have side effects.

The answers and their wording are those of the libcst reading this replaced (tests/test_ast_emit.py keeps
it as its oracle). Where the trees differ, libcst's shape is read: `True`, `False` and `None` are Names there (a call of
`True` is named), `1` and `1.5` are Integer and Float but `True` is no Integer, and `risks` meets the
nodes in libcst's order (children as written, the last one taken first), which orders its reasons.
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

from ..analysis.ast_names import branches

Pure = Optional[Callable[[ast.expr], bool]]

# Calls that cannot raise, produce inf/NaN gradients or have side effects (by last name component).
HARMLESS_CALLS = frozenset(
    "where maximum minimum abs absolute clip clamp sum mean max min sign zeros_like ones_like square sin cos tanh "
    "stack concat concatenate reshape transpose expand_dims squeeze real imag conj conjugate float32 float64 "
    "astype to cast all any logical_and logical_or logical_not wrap tensor asarray array round floor ceil "
    "dot matmul einsum vec_squared vec_length_squared l2_loss softplus sigmoid relu".split()
)
# Calls whose argument must stay in a domain: guarded with the double-`where` pattern.
DOMAIN_CALLS = frozenset("sqrt log log2 log10 rsqrt".split())

_DIVISIONS = (ast.Div, ast.FloorDiv, ast.Mod)
NAMED_CONSTANTS = (bool, type(None))  # the types of libcst's Names `True`, `False`, `None` (ast Constants)


def written_children(node: ast.AST) -> list[ast.AST]:
    """`node`'s children in the order they are written (libcst's `children`, less its tokens and the names
    `ast` holds as strings). Read off the structure, not the places, which a value rebuilt by substitution
    (ast_branches.substitute) has not: only a call's keywords among its starred arguments need them."""
    if isinstance(node, ast.Call):
        return [node.func, *call_arguments(node)]
    if isinstance(node, ast.Dict):
        return [part for key, value in zip(node.keys, node.values) for part in ((key, value) if key else (value,))]
    if isinstance(node, ast.IfExp):
        return [node.body, node.test, node.orelse]
    if isinstance(node, ast.arguments):
        return _parameters(node)
    return branches(node)


def call_arguments(call: ast.Call) -> list[ast.AST]:
    """A call's arguments and keywords as written. Positional arguments precede every keyword; a starred
    one may follow `k=v` ones (`f(k=1, *a)`): where they are says it, or, for a call rebuilt without a
    place, the order of the call it was rebuilt from (`written_order`: indices into args + keywords)."""
    order = getattr(call, "written_order", None)
    if order is not None:
        items: list[ast.AST] = [*call.args, *call.keywords]
        return [items[i] for i in order]
    out: list[ast.AST] = []
    keywords = list(call.keywords)
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            while keywords and (keywords[0].lineno, keywords[0].col_offset) < (arg.lineno, arg.col_offset):
                out.append(keywords.pop(0))
        out.append(arg)
    return [*out, *keywords]


def _parameters(arguments: ast.arguments) -> list[ast.AST]:
    """Each parameter followed by its default, as written (`ast` keeps the defaults apart)."""
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += arguments.defaults
    out = _with_defaults(positional, defaults)
    out += [arguments.vararg] if arguments.vararg is not None else []
    out += _with_defaults(arguments.kwonlyargs, arguments.kw_defaults)
    out += [arguments.kwarg] if arguments.kwarg is not None else []
    return out


def _with_defaults(parameters: list[ast.arg], defaults: list[ast.expr | None]) -> list[ast.AST]:
    return [part for p, d in zip(parameters, defaults) for part in ((p,) if d is None else (p, d))]


def last_name(node: ast.AST) -> str | None:
    """names.last_name: `c` for `c` or `a.b.c`; `True`, `False`, `None` too (Names on libcst)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and type(node.value) in NAMED_CONSTANTS:
        return str(node.value)
    return None


def number(node: ast.AST, kinds: tuple[type, ...] = (int, float)) -> bool:
    """A literal of one of `kinds`, by exact type: an Integer (`int`) or Float (`float`) on libcst, where a
    bool is a Name."""
    return isinstance(node, ast.Constant) and type(node.value) in kinds


def _nonzero_literal(expr: ast.AST) -> bool:
    try:
        return isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and number(expr) \
            and float(expr.value) != 0
    except (ValueError, TypeError):
        return False


def has_work(expr: ast.AST) -> bool:
    """`expr` calls something beyond cheap elementwise operations: worth a real branch (`lax.cond`)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and last_name(node.func) not in HARMLESS_CALLS:
            return True
        stack.extend(written_children(node))
    return False


def risks(expr: ast.AST, pure: Pure = None) -> list[str]:
    """Why evaluating `expr` where its branch is not selected may go wrong (empty: harmless), in
    the libcst reading's order. `pure(func)` says a callee is a side-effect-free library function."""
    out: list[str] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BinOp) and isinstance(node.op, _DIVISIONS):
            if not _nonzero_literal(node.right):
                out.append("a division (inf/NaN where the denominator is 0)")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not number(node.right, (int,)):
            out.append("a power with a non-integer exponent")
        elif isinstance(node, ast.Call):
            name = last_name(node.func)
            if name in DOMAIN_CALLS:
                out.append(f"`{name}` (NaN/inf outside its domain)")
            elif name == "exp":
                out.append("`exp` (may overflow to inf)")
            elif name not in HARMLESS_CALLS and not (pure is not None and pure(node.func)):
                out.append(f"a call of `{name or 'an expression'}` (may raise or have side effects)")
        elif isinstance(node, (ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)):
            out.append("a lambda, yield, await or assignment expression")
        stack.extend(written_children(node))
    return list(dict.fromkeys(out))


def guardable(expr: ast.AST, pure: Pure = None) -> bool:
    """Every risk of `expr` is one the double-`where` pattern removes (divisions, sqrt, log)."""
    return all(r.startswith(("a division", "`sqrt`", "`log", "`rsqrt`")) for r in risks(expr, pure))


def literal(value: ast.AST) -> bool:
    """traced_if's `_literal`: a number or None (`cond` needs both branches of one shape and dtype, `where`
    broadcasts it), or one unary operator of one (`-1`; `not None` too, as libcst's reading has it)."""
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    return number(value) or isinstance(value, ast.Constant) and value.value is None
