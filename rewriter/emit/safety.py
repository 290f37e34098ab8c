"""What evaluating a branch unconditionally can do that the `if` prevented.

`where` computes both branches. A branch the condition guarded may then divide by zero, take the
square root or logarithm of a negative number (forward values are still selected correctly, but
the gradient of the unselected branch is NaN/inf and `0 * NaN = NaN` poisons the selected one), call
something that raises, or have side effects. The double-`where` pattern keeps gradients finite:
the risky operand is replaced by a harmless value wherever the branch is not selected.
"""
from __future__ import annotations

import functools

from ..lazy_libcst import cst

from ..analysis.names import last_name
from ..cst_tree import children

# Calls that cannot raise, produce inf/NaN gradients or have side effects (by last name component).
_HARMLESS_CALLS = frozenset(
    "where maximum minimum abs absolute clip clamp sum mean max min sign zeros_like ones_like square sin cos tanh "
    "stack concat concatenate reshape transpose expand_dims squeeze real imag conj conjugate float32 float64 "
    "astype to cast all any logical_and logical_or logical_not wrap tensor asarray array round floor ceil "
    "dot matmul einsum vec_squared vec_length_squared l2_loss softplus sigmoid relu".split()
)
# Calls whose argument must stay in a domain: guarded with the double-`where` pattern.
_DOMAIN_CALLS = frozenset("sqrt log log2 log10 rsqrt".split())


def _nonzero_literal(expr: cst.BaseExpression) -> bool:
    try:
        return isinstance(expr, (cst.Integer, cst.Float)) and float(expr.evaluated_value) != 0
    except (ValueError, TypeError):
        return False


def has_work(expr: cst.CSTNode) -> bool:
    """`expr` calls something beyond cheap elementwise operations: worth a real branch (`lax.cond`)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and last_name(node.func) not in _HARMLESS_CALLS:
            return True
        stack.extend(c for c in children(node) if isinstance(c, cst.CSTNode))
    return False


def risks(expr: cst.CSTNode, pure=None) -> list[str]:
    """Why evaluating `expr` where its branch is not selected may go wrong (empty: harmless).

    `pure(func)` says a callee is a side-effect-free library function (`math.laplace`, `jnp.sin`)."""
    out: list[str] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Divide, cst.FloorDivide, cst.Modulo)):
            if not _nonzero_literal(node.right):
                out.append("a division (inf/NaN where the denominator is 0)")
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power) \
                and not isinstance(node.right, cst.Integer):
            out.append("a power with a non-integer exponent")
        elif isinstance(node, cst.Call):
            name = last_name(node.func)
            if name in _DOMAIN_CALLS:
                out.append(f"`{name}` (NaN/inf outside its domain)")
            elif name == "exp":
                out.append("`exp` (may overflow to inf)")
            elif name not in _HARMLESS_CALLS and not (pure is not None and pure(node.func)):
                out.append(f"a call of `{name or 'an expression'}` (may raise or have side effects)")
        elif isinstance(node, (cst.Lambda, cst.Yield, cst.Await, cst.NamedExpr)):
            out.append("a lambda, yield, await or assignment expression")
        stack.extend(c for c in children(node) if isinstance(c, cst.CSTNode))
    return list(dict.fromkeys(out))


def guardable(expr: cst.CSTNode, pure=None) -> bool:
    """Every risk of `expr` is one the double-`where` pattern removes (divisions, sqrt, log)."""
    return all(r.startswith(("a division", "`sqrt`", "`log", "`rsqrt`")) for r in risks(expr, pure))


@functools.cache
def _guard() -> type:
    """The class below, made once libcst is imported (lazy_libcst)."""

    class Guard(cst.CSTTransformer):
        """Replaces risky operands `d` by `where(selected, d, 1)`."""

        def __init__(self, wrap) -> None:
            self.wrap = wrap

        def leave_BinaryOperation(self, original, updated):
            if isinstance(updated.operator, (cst.Divide, cst.FloorDivide, cst.Modulo)) and not _nonzero_literal(updated.right):
                return updated.with_changes(right=self.wrap(updated.right))
            return updated

        def leave_Call(self, original, updated):
            if last_name(updated.func) in _DOMAIN_CALLS and updated.args:
                first = updated.args[0]
                return updated.with_changes(args=[first.with_changes(value=self.wrap(first.value)), *updated.args[1:]])
            return updated

    return Guard


def guarded(expr: cst.BaseExpression, wrap) -> cst.BaseExpression:
    """`expr` with every denominator and sqrt/log argument `d` replaced by `wrap(d)`."""
    return expr.visit(_guard()(wrap))
