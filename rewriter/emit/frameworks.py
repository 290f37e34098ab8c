"""The primitives each framework offers for control flow on traced values, as libcst nodes.

PhiML has no public cond / fori_loop / while_loop: a selection is `math.where` and
boolean logic uses the Tensor operators `&`, `|`, `~`. jax has `jnp.where` and `jax.lax.cond` /
`fori_loop` / `while_loop`; torch (under `torch.jit.trace`, which is how PhiML compiles on torch)
only `torch.where`; tensorflow `tf.where` / `tf.cond` / `tf.while_loop`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..lazy_libcst import cst

from .spelling import PlannedSpelling, Spelling

MODULES = {  # framework -> (its array functions' module, its loop and one-branch selection module)
    "phiml": ("phiml.math", None),
    "jax": ("jax.numpy", "jax.lax"),
    "torch": ("torch", None),
    "tensorflow": ("tensorflow", "tensorflow"),
}
FRAMEWORKS = frozenset(MODULES)


def atom(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`expr`, parenthesised unless it binds at least as tightly as a call or subscript (a tuple written
    without parentheses does not: `1, 2` in an argument list is two arguments)."""
    if expr.lpar or isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float,
                                      cst.SimpleString, cst.List, cst.Dict, cst.Set)):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _args(*values: cst.BaseExpression) -> list[cst.Arg]:
    return [cst.Arg(_bare(v)) for v in values]


def _bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """Drop redundant outer parentheses of an argument: `where((x > 0), ...)` reads badly. A tuple keeps
    its own, or gets some: `where(c, (1, 2), b)`, `lambda: (1, 2)`."""
    if isinstance(expr, cst.Tuple):
        return atom(expr)
    if isinstance(expr, (cst.GeneratorExp, cst.Yield)) or not expr.lpar:
        return expr
    return expr.with_changes(lpar=[], rpar=[])


def thunk(expr: cst.BaseExpression) -> cst.Lambda:
    return cst.Lambda(cst.Parameters(), _bare(expr))


@dataclass
class Emitter:
    """Spells one framework's primitives (`jnp.where`, `tf.cond`...) in the code a fix writes."""
    framework: str
    spell: "Spelling | PlannedSpelling"

    def _array(self, name: str) -> cst.BaseExpression:
        return self.spell(MODULES[self.framework][0], name)

    def where(self, condition, if_true, if_false) -> cst.Call:
        return cst.Call(self._array("where"), _args(condition, if_true, if_false))

    def all(self, value) -> cst.Call:
        return cst.Call(self._array("all"), self._every_dimension(_args(value)))

    def any(self, value) -> cst.Call:
        return cst.Call(self._array("any"), self._every_dimension(_args(value)))

    def _every_dimension(self, args: list) -> list:
        """PhiML's `t.all` / `t.any` reduce every dimension, `math.all(t)` / `math.any(t)` all but the batch
        ones: `dim=math.shape` keeps the property's meaning when `t` has a batch dimension."""
        if self.framework != "phiml":
            return args
        return [*args, cst.Arg(self._array("shape"), keyword=cst.Name("dim"),
                               equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))]

    def logical(self, op: str, left, right=None) -> cst.BaseExpression:
        """op in and / or / not, on traced booleans (a Python bool operand works too)."""
        if self.framework == "phiml":  # Tensor operators; `~` only ever sees a traced operand here
            if op == "not":
                return cst.UnaryOperation(cst.BitInvert(), atom(left))
            operator = cst.BitAnd() if op == "and" else cst.BitOr()
            return cst.BinaryOperation(atom(left), operator, atom(right))
        name = {"and": "logical_and", "or": "logical_or", "not": "logical_not"}[op]
        values = (left,) if right is None else (left, right)
        return cst.Call(self._array(name), _args(*values))

    def cond(self, condition, if_true, if_false) -> cst.Call:
        """Evaluates one branch only: `jax.lax.cond(c, lambda: a, lambda: b)` / `tf.cond(...)`."""
        callee = self.spell("jax.lax", "cond") if self.framework == "jax" else self.spell("tensorflow", "cond")
        return cst.Call(callee, [cst.Arg(_bare(condition)), cst.Arg(thunk(if_true)), cst.Arg(thunk(if_false))])

    def fori_loop(self, start, stop, body: str, init) -> cst.Call:
        return cst.Call(self.spell("jax.lax", "fori_loop"), _args(start, stop, cst.Name(body), init))

    def while_loop(self, cond: str, body: str, init) -> cst.Call:
        return cst.Call(self.spell("jax.lax", "while_loop"), _args(cst.Name(cond), cst.Name(body), init))
