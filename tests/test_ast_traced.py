"""The pre-filter's reading of traced values on CPython's ast (rewriter/analysis/ast_ast_flow.py) and the
rule gates built on it: never "static" where ast_flow.py finds a tracer, and sharp enough to keep files
whose control flow is all static away from libcst."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from codemods.static_count_argument import _configurable_on_ast
from rewriter.analysis.ast_names import own_nodes_in_order
from rewriter.analysis.static_names import JAX_SHAPES, size_arguments
from rewriter.ast_rule import AstFile
from rewriter.engine import ProcessingError, process_source
from rewriter.prefilter import filter_codemods, syntax_of
from rewriter.registry import by_code
from rewriter.settings import Settings
from tests.harness.ast_files import ast_file

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.glob("golden/*/*.py"), *ROOT.glob("examples/*.py")])


def _maybe_by_line(source: str) -> dict[int, list[bool]]:
    """Line -> what the pre-filter says of each condition or trip count starting there, in the functions
    it finds traced (ast_traced.Flows: jit roots with their static arguments, helpers with what their
    call sites pass)."""
    syntax = syntax_of(source.encode())
    out: dict[int, list[bool]] = {}
    for function in syntax._walked.flows().analysed():
        for test, narrowed in function.tests:
            out.setdefault(test.lineno, []).append(function.maybe_at(test, narrowed))
    return out


def _traced_file(path: Path) -> tuple[str, AstFile] | None:
    """The file's text and its reading on `ast`; None when it is not read or has no jit context."""
    source = path.read_text()
    try:
        file = ast_file(source, str(path))
    except ProcessingError:
        return None
    return (source, file) if file.reading is not None and file.jit.contexts else None


def _tests(file: AstFile):
    """(flow, condition or iterable) of each `if`, `while`, conditional expression and loop of the traced
    functions' own bodies, in the order written."""
    for flow in file.traced.flows.values():
        for node in own_nodes_in_order(flow.context.function):
            if isinstance(node, (ast.If, ast.While, ast.IfExp)):
                yield flow, node, node.test
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                yield flow, node, node.iter


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_traced_condition_is_a_maybe(path: Path):
    """Each condition or trip count that ast_flow.py finds traced or undecidable, in every golden case
    and example (originals and rewrites), is one ast_traced may not call static."""
    found = _traced_file(path)
    if found is None:
        return
    source, file = found
    maybe = _maybe_by_line(source)
    for flow, _, test in _tests(file):
        value = flow.value_of(test)
        if value is None or value.static:
            continue
        assert any(maybe.get(test.lineno, ())), f"{path.name}:{test.lineno}: `{ast.unparse(test)}` is {value.trace.name}"


def _configuration_maybe_by_line(source: str) -> dict[int, list[bool]]:
    """Line -> what the pre-filter's reading from configuration parameters alone (PML204's gate) says
    of each condition, trip count and call argument starting there."""
    syntax = syntax_of(source.encode())
    out: dict[int, list[bool]] = {}
    facts = syntax._walked
    with facts.flows_from(lambda node: _configurable_on_ast(facts, node)) as flows:
        for function in flows:
            for test, narrowed in function.tests:
                out.setdefault(test.lineno, []).append(function.maybe_at(test, narrowed))
            for call in function.calls:
                for arg in [*call.args, *(k.value for k in call.keywords)]:
                    arg = arg.value if isinstance(arg, ast.Starred) else arg
                    out.setdefault(arg.lineno, []).append(function.maybe_at(arg, frozenset()))
    return out


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_configuration_value_is_a_maybe(path: Path):
    """Each condition, trip count or jax shape argument whose value ast_flow.py derives from
    configuration parameters alone (what PML204 reports) is one the configuration reading may not call static."""
    found = _traced_file(path)
    if found is None:
        return
    source, file = found
    traced, names = file.traced, file.names
    maybe = None
    for flow in traced.flows.values():
        for node in own_nodes_in_order(flow.context.function):
            values = []
            if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.For, ast.AsyncFor)):
                test = node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else node.test
                values.append((test, flow.value_of(test)))
            elif isinstance(node, ast.Call) and names.qualified_names(node.func) & JAX_SHAPES:
                values += [(a, traced.value_anywhere(a, flow.context.function)) for a in _size_arguments(node)]
            for expr, value in values:
                if value is None or not value.traced or not value.sources or not all(map(traced.is_config, value.sources)):
                    continue
                maybe = maybe if maybe is not None else _configuration_maybe_by_line(source)
                assert any(maybe.get(expr.lineno, ())), f"{path.name}:{expr.lineno}: `{ast.unparse(expr)}` is configuration"


def _size_arguments(call: ast.Call) -> list[ast.expr]:
    """The arguments of a jax shape call that PML204 reads as sizes (static_names.size_arguments), in the
    order written."""
    function = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    args = sorted([*call.args, *call.keywords], key=lambda a: (a.lineno, a.col_offset))
    sizes = size_arguments(function, [(isinstance(a, ast.Starred) or isinstance(a, ast.keyword) and a.arg is None,
                                       a.arg if isinstance(a, ast.keyword) else None) for a in args])
    return [a.value if isinstance(a, (ast.keyword, ast.Starred)) else a for a, size in zip(args, sizes) if size]


def _passes(code: str, source: str) -> bool:
    return bool(filter_codemods(textwrap.dedent(source).encode(), [by_code(code)]))


JIT = "import jax\nimport jax.numpy as jnp\n"


GATE_CASES = [
    # conditions: a parameter, a jax operation, a helper's result may be traced; shapes, identity and strings are not
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n", True),
    ("PML201", JIT + "@jax.jit\ndef f(x, n=None):\n    if n is None:\n        return x\n    return x\n", False),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    if x.shape[0] > 2 and len(x) > 1:\n        return x\n    return x\n", False),
    ("PML201", JIT + "@jax.jit\ndef f(x, mode='a'):\n    if mode == 'fast':\n        return x\n    return x\n", False),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    if jnp.ones(3).sum() > 0:\n        return x\n    return x\n", True),
    # a helper of the module: what it returns for what the call may pass (ast_flow.TracedAnalysis.returns_of)
    ("PML201", JIT + "def h():\n    return 1\n@jax.jit\ndef f(x):\n    if h():\n        return x\n    return x\n", False),
    ("PML201", JIT + "def h():\n    return jnp.ones(3).sum()\n@jax.jit\ndef f(x):\n    if h():\n        return x\n    return x\n", True),
    ("PML201", JIT + "def h(a, b):\n    return b\n@jax.jit\ndef f(x):\n    if h(x, 2):\n        return x\n    return x\n", False),
    ("PML201", JIT + "def h(a, b):\n    return a\n@jax.jit\ndef f(x):\n    if h(x, 2):\n        return x\n    return x\n", True),
    ("PML201", JIT + "def h(a):\n    return isinstance(a, int)\n@jax.jit\ndef f(x):\n    if h(x):\n        return x\n    return x\n", False),
    ("PML201", JIT + "def h(a):\n    return h(a)\n@jax.jit\ndef f(x):\n    if h(1):\n        return x\n    return x\n", True),  # recursion: undecided
    ("PML201", JIT + "def h(a):\n    yield a\n@jax.jit\ndef f(x):\n    if h(1):\n        return x\n    return x\n", True),  # a generator
    ("PML201", JIT + "import numpy as np\n@jax.jit\ndef f(x):\n    if np.ones(3).sum() > 0:\n        return x\n    return x\n", False),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    y = x * 2\n    z = y\n    return z if z > 0 else -z\n", True),
    # a tuple target, element by element (ast_flow._Flow.bind): a tuple literal's parts, a tree definition,
    # the parts of the tuples every `return` of a module helper gives; the whole value otherwise
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    y, n = x, 3\n    return y if n > 2 else -y\n", False),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    y, n = 3, x\n    return y if n > 2 else -y\n", True),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    y, *n = x, 3\n    return y if n else -y\n", True),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    leaves, tree = jax.tree_util.tree_flatten(x)\n    return x if tree else -x\n", False),
    ("PML201", JIT + "def h(k):\n    if isinstance(k, int):\n        return jnp.asarray(k), True\n    return k, False\n"
               "@jax.jit\ndef f(x):\n    y, w = h(x)\n    return y + 1 if w else y * 2\n", False),
    ("PML201", JIT + "def h(k):\n    if isinstance(k, int):\n        return jnp.asarray(k), True\n    return k, False\n"
               "@jax.jit\ndef f(x):\n    w, y = h(x)\n    return y + 1 if w else y * 2\n", True),
    ("PML201", JIT + "def h(k):\n    if isinstance(k, int):\n        return jnp.asarray(k), True\n    return (k, False, 1)\n"
               "@jax.jit\ndef f(x):\n    y, w = h(x)\n    return y + 1 if w else y * 2\n", True),  # not always a pair
    ("PML201", JIT + "def h(k):\n    return k, False\n@jax.jit\ndef f(x):\n    def h(k):\n        return k, k\n"
               "    y, w = h(x)\n    return y + 1 if w else y * 2\n", True),  # a local `h`, not the module's
    # a jit def nested in a function no flow reaches reads Python values from it (ast_flow.TracedAnalysis._closure: none)
    ("PML201", JIT + "def make(flag):\n    @jax.jit\n    def f(x):\n        return x if flag else -x\n    return f\n", False),
    ("PML201", JIT + "@jax.jit\ndef g(y):\n    def make(flag):\n        @jax.jit\n        def f(x):\n            return x if flag else -x\n"
               "        return f\n    return make(y)(y)\n", True),
    # a def nested in the caller is read with the caller's locals (ast_flow.TracedAnalysis.returns_of): a closure may hold a tracer
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    def scaled(a):\n        return a * x\n    return x if scaled(1.0) > 0 else -x\n", True),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    def const(a):\n        return a * 2\n    return x if const(1.0) > 0 else -x\n", False),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    def staged():\n        return jnp.ones(3).sum()\n    return x if staged() > 0 else -x\n", True),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    k = 1\n    def pick(t):\n        return t[k]\n    return x if pick((1, 2)) > 0 else -x\n", False),
    # a list, tuple, set or dict built here: iterating it and its truth are static (trace_values.Value.container)
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    ys = [x * i for i in range(3)]\n    return x if ys else -x\n", False),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    ys = []\n    ys.append(x)\n    ys += [x]\n    if not ys:\n        return x\n    return -x\n", False),
    ("PML202", JIT + "@jax.jit\ndef f(x):\n    ys = (x.a, x.b)\n    for y in ys:\n        x = x + y\n    return x\n", False),
    ("PML202", JIT + "@jax.jit\ndef f(x):\n    for y in [x.a, x.b]:\n        x = x + y\n    return x\n", False),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    ys = []\n    ys = x\n    return x if ys else -x\n", True),  # not always one
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    ys = [x]\n    ys.index(x)\n    return x if ys else -x\n", True),
    ("PML201", JIT + "@jax.jit\ndef f(x, ys=()):\n    return x if ys else -x\n", True),  # a parameter
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    ys = [x]\n    return x if ys[0] else -x\n", True),  # an element
    ("PML202", JIT + "@jax.jit\ndef f(x):\n    for ys in [[x.a], [x.b]]:\n        for y in ys:\n            x = x + y\n    return x\n", True),
    # a name the module binds by assignment is a local to the scope analysis, not followed as an alias:
    # jax's own `zip, unsafe_zip = safe_zip, zip` is no jax operation; `jax` bound so and spelled as one is
    ("PML202", JIT + "from helpers import safe_zip\nzip, unsafe_zip = safe_zip, zip\n"
               "@jax.jit\ndef f(x, y):\n    for a, b in zip(x.shape, y.shape):\n        x = x + a\n    return x\n", False),
    ("PML202", JIT + "zeros = jnp.zeros\n@jax.jit\ndef f(x):\n    for a in zeros(3):\n        x = x + a\n    return x\n", False),
    ("PML201", "import importlib\nfrom jax import jit\njax = importlib.import_module('jax')\n"
               "@jit\ndef f(x):\n    if jax.numpy.ones(3).sum() > 0:\n        return x\n    return -x\n", True),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    def g():\n        if x > 0:\n            return 1\n        return 0\n    return g()\n", True),
    ("PML201", JIT + "def f(x):\n    if x > 0:\n        return x\n    return -x\n", False),  # not traced
    ("PML202", JIT + "@jax.jit\ndef f(x, n):\n    for i in range(n):\n        x = x + 1\n    return x\n", True),
    # what the installed packages say: type predicates, a pytree's leaves, a value class's static fields
    ("PML201", JIT + "import equinox as eqx\n@jax.jit\ndef f(x, terms):\n    if eqx.is_array_like(terms):\n        return x\n    return -x\n", False),
    ("PML202", JIT + "@jax.jit\ndef f(x):\n    for leaf in jax.tree_util.tree_leaves(x):\n        x = leaf\n    return x\n", False),
    ("PML201", "import equinox as eqx\nclass Cfg(eqx.Module):\n    dense: bool = False\n@eqx.filter_jit\n"
               "def f(x, cfg: Cfg):\n    cfg = eqx.tree_at(lambda c: c.dense, cfg, True)\n    if cfg.dense:\n        return x\n    return -x\n", False),
    ("PML201", "import equinox as eqx\nclass Cfg(eqx.Module):\n    dense: bool = False\n@eqx.filter_jit\n"
               "def f(x, cfg: Cfg, other: Cfg):\n    cfg = other.dense + x\n    if cfg.dense:\n        return x\n    return -x\n", True),
    ("PML201", JIT + "@jax.jit\ndef f(x):\n    if any(k > 1 for k in (1, 2)):\n        return x\n    return -x\n", False),
    # static arguments of the transform, and helpers judged by what their call sites pass
    ("PML202", JIT + "from functools import partial\n@partial(jax.jit, static_argnames='n')\ndef f(x, n):\n"
               "    for i in range(n):\n        x = x + 1\n    return x\n", False),
    ("PML202", JIT + "@jax.jit\ndef f(x, n):\n    for i in range(n):\n        x = x + 1\n    return x\n"
               "g = jax.jit(f, static_argnums=1)\n", True),  # f itself is jitted with n traced too
    ("PML201", JIT + "def h(x, flag):\n    if flag:\n        return x\n    return -x\n"
               "@jax.jit\ndef f(x):\n    return h(x, True)\n", False),
    ("PML201", JIT + "def h(x, flag):\n    if flag:\n        return x\n    return -x\n"
               "@jax.jit\ndef f(x):\n    return h(x, x > 0)\n", True),
    ("PML201", JIT + "def h(x, flag):\n    if flag:\n        return x\n    return -x\n"
               "@jax.jit\ndef f(x, *a):\n    return h(*a)\n", True),
    ("PML201", JIT + "def body(i, x):\n    if i > 2:\n        return x\n    return -x\n"
               "@jax.jit\ndef f(x):\n    return jax.lax.fori_loop(0, 3, body, x)\n", True),
    ("PML201", "import equinox as eqx\n@eqx.filter_jit\ndef f(x, flag: bool = False):\n    if flag:\n        return x\n    return -x\n", False),
    ("PML201", "import jax\n@jax.jit\ndef f(x, flag: bool = False):\n    if flag:\n        return x\n    return -x\n", True),
    ("PML201", JIT + "@jax.jit\ndef f(x, i):\n    if isinstance(i, int):\n        if i < 0:\n            return x\n    return x\n", False),
    ("PML201", JIT + "@jax.jit\ndef f(x, i):\n    if isinstance(i, int):\n        i = x\n        if i < 0:\n            return x\n    return x\n", True),
    ("PML201", JIT + "@jax.jit\ndef f(x, i):\n    if isinstance(i, int) and i < 0:\n        return x\n    return x\n", False),
    ("PML201", JIT + "@jax.jit\ndef f(x, i):\n    if isinstance(i, jax.Array) and i < 0:\n        return x\n    return x\n", True),
    ("PML201", "from phiml import math\n@math.jit_compile_linear\ndef f(x, order):\n    if order > 2:\n        return x\n    return -x\n", False),
    ("PML203", JIT + "@jax.jit\ndef f(x):\n    k = 3\n    while k > 0:\n        k -= 1\n    return x\n", False),
    # configuration (PML204): what a jit root's parameter that may be configuration reaches, in a condition,
    # a trip count or a jax shape call; a parameter is that by a default, an annotation or calls of the root
    ("PML204", JIT + "@jax.jit\ndef f(x, n):\n    return x + jnp.zeros(n)\nf(1., 3)\n", True),
    ("PML204", JIT + "@jax.jit\ndef f(x, n):\n    return x + jnp.zeros(n)\n", False),  # no call: n is no configuration
    ("PML204", JIT + "@jax.jit\ndef f(x, n=3):\n    return x + jnp.zeros(n)\n", True),
    ("PML204", JIT + "@jax.jit\ndef f(x):\n    return x + jnp.zeros(3, dtype=x.dtype)\nf(1.)\n", False),
    # a shape call's data is no size: `fill_value`, `linspace`'s ends, `repeat`'s counts with their total
    ("PML204", JIT + "@jax.jit\ndef f(x, fill=0.0):\n    return x + jnp.full((3,), fill)\nf(1., 2.)\n", False),
    ("PML204", JIT + "@jax.jit\ndef f(x, n=3):\n    return x + jnp.full((n,), 0.0)\n", True),
    ("PML204", JIT + "@jax.jit\ndef f(x, stop=1.0):\n    return x + jnp.linspace(0.0, stop, 5)\n", False),
    ("PML204", JIT + "@jax.jit\ndef f(x, num=5):\n    return x + jnp.linspace(0.0, 1.0, num)\n", True),
    ("PML204", JIT + "@jax.jit\ndef f(x, r=2):\n    return jnp.repeat(x, r, total_repeat_length=4)\n", False),
    ("PML204", JIT + "@jax.jit\ndef f(x, r=2):\n    return jnp.repeat(x, r)\n", True),
    ("PML204", JIT + "@jax.jit\ndef f(x, s=(2, 2)):\n    return jnp.reshape(x, *s)\n", True),
    ("PML204", JIT + "@jax.jit\ndef f(x, n: int):\n    if n > 2:\n        return x\n    return -x\n", True),
    ("PML204", JIT + "@jax.jit\ndef f(x, n: 'Literal[2, 3]'):\n    if n > 2:\n        return x\n    return -x\n", False),
    ("PML204", JIT + "def h(x, n):\n    return jnp.zeros(n)\n@jax.jit\ndef f(x, n=2):\n    return h(x, n)\n", True),
    ("PML204", JIT + "def h(x, n):\n    return jnp.zeros(n)\n@jax.jit\ndef f(x, n):\n    return h(x, n)\n", False),
    # iterating what ast_flow.py certainly calls a tracer has a static trip count: a jitted def's parameter, a
    # helper's parameter some call certainly passes one (a binding after the call, outside loops, does not reach it)
    ("PML202", JIT + "@jax.jit\ndef f(xs):\n    for x in zip(xs, xs):\n        xs = xs + 1\n    return xs\n", False),
    ("PML202", JIT + "def h(xs, n):\n    for x in zip(xs, xs):\n        n = n + 1\n    return n\n"
               "@jax.jit\ndef f(xs, ys):\n    out = h(xs, 1)\n    xs = ys.shape\n    return out\n", False),
    ("PML202", JIT + "def h(xs, n):\n    for x in xs:\n        n = n + 1\n    return n\n"
               "@jax.jit\ndef f(x, ys):\n    return h(ys, 1) + h(x.items, 2)\n", False),
    ("PML202", JIT + "def h(xs, n):\n    for x in zip(xs, xs):\n        n = n + 1\n    return n\n"
               "@jax.jit\ndef f(xs, ys):\n    for i in range(2):\n        out = h(xs, 1)\n        xs = ys.shape\n    return out\n", True),
    ("PML202", JIT + "class A:\n    @jax.jit\n    def f(self, x):\n        for v in self.items:\n            x = x + v\n        return x\n", True),
    # long loops: literal counts from 50, long defaults, lengths of what may be traced
    ("PML206", JIT + "@jax.jit\ndef f(x):\n    for i in range(100):\n        x = x + 1\n    return x\n", True),
    ("PML206", JIT + "@jax.jit\ndef f(x):\n    for i in range(3):\n        x = x + 1\n    return x\n", False),
    ("PML206", JIT + "@jax.jit\ndef f(x, n=200):\n    for i in range(n):\n        x = x + 1\n    return x\n", True),
    ("PML206", JIT + "@jax.jit\ndef f(x):\n    n = x.shape[0]\n    for i in range(n):\n        x = x + 1\n    return x\n", True),
    ("PML206", JIT + "@jax.jit\ndef f(xs):\n    for row in xs:\n        xs = xs + row\n    return xs\n", True),
    ("PML206", JIT + "@jax.jit\ndef f(x):\n    for k in (1, 2):\n        x = x + k\n    return x\n", False),
    ("PML206", JIT + "@jax.jit\ndef f(*xs):\n    for row in xs:\n        xs = xs + row\n    return xs\n", False),  # a tuple of arguments
    ("PML206", JIT + "@jax.jit\ndef f(ys, *xs):\n    for a, b in zip(xs, ys):\n        ys = a + b\n    return ys\n", True),
    # side effects: stores outside, global/nonlocal, print of what may be traced
    ("PML501", JIT + "LOG = []\n@jax.jit\ndef f(x):\n    LOG.append(x)\n    return x\n", True),
    ("PML501", JIT + "@jax.jit\ndef f(x):\n    ys = []\n    ys.append(x)\n    return ys\n", False),
    ("PML501", JIT + "@jax.jit\ndef f(x):\n    ys = []\n    [ys.append(v) for v in x]\n    return ys\n", True),
    ("PML501", JIT + "@jax.jit\ndef f(x):\n    print(x)\n    return x\n", True),
    ("PML501", JIT + "@jax.jit\ndef f(x):\n    print('tracing', x.shape)\n    return x\n", False),
    ("PML501", JIT + "from jax import lax\n@jax.jit\ndef f(x):\n    return lax.add(x, x)\n", False),  # a module, not a container
    ("PML501", JIT + "@jax.jit\ndef f(x):\n    return undefined.add(x)\n", False),  # bound nowhere: nothing it outlives
    ("PML501", JIT + "def g():\n    log = []\n    @jax.jit\n    def f(x):\n        log.append(x)\n        return x\n    return f\n", True),
    # positional `wrt` (PML601), old Solve arguments (PML605)
    ("PML601", "from phiml import math\ndef loss(x, y):\n    return x\ng = math.gradient(loss, 0)\n", True),
    ("PML601", "from phiml import math\ndef loss(x, y):\n    return x\ng = math.gradient(loss, 'x')\n", False),
    ("PML601", "from phiml import math\nclass B:\n    def g(self, f):\n        return self.jacobian(f, [0])\n", False),
    ("PML605", "from phiml import math\ns = math.Solve('CG', 1e-5, 1e-5, 100)\n", True),
    ("PML605", "from phiml import math\ns = math.Solve('CG', 1e-5, 1e-5, x0=None)\n", False),
    ("PML605", "from phiml import math\ns = math.Solve('CG', relative_tolerance=1e-5)\n", True),
    # auxiliary_args naming something else than a parameter (PML205)
    ("PML205", "from phiml import math\n@math.jit_compile(auxiliary_args='n')\ndef f(x, m):\n    return x\n", True),
    ("PML205", "from phiml import math\n@math.jit_compile(auxiliary_args='m')\ndef f(x, m):\n    return x\n", False),
    ("PML205", "from phiml import math\ndef f(x, m):\n    return x\ng = math.jit_compile(f, auxiliary_args='x,n')\n", True),
    # a custom-gradient forward calling solve_linear or another custom-gradient function (PML502)
    ("PML502", "from phiml import math\ndef f(x):\n    return x\ndef g(x, y, dx):\n    return dx\n"
               "h = math.custom_gradient(f, g)\n", False),
    ("PML502", "from phiml import math\ninner = math.custom_gradient(lambda x: x, lambda x, y, dx: dx)\n"
               "def f(x):\n    return inner(x)\ndef g(x, y, dx):\n    return dx\nh = math.custom_gradient(f, g)\n", True),
    ("PML502", "from phiml import math\ndef f(x):\n    return math.solve_linear(op, x, math.Solve('CG'))\n"
               "def g(x, y, dx):\n    return dx\nh = math.custom_gradient(f, g)\n", True),
    # lax.cond reached from a vmapped function (PML507)
    ("PML507", JIT + "from jax import lax\ndef g(x):\n    return lax.cond(x > 0, jnp.sin, jnp.cos, x)\n"
               "def f(x):\n    return g(x)\nh = jax.vmap(f)\n", True),
    ("PML507", JIT + "from jax import lax\ndef g(x):\n    return lax.cond(x > 0, jnp.sin, jnp.cos, x)\n"
               "def f(x):\n    return x\nh = jax.vmap(f)\n", False),
    # jit of what may be jitted (PML303): `f = jax.jit(f)` does not see its own binding, outside a loop
    ("PML303", "import jax\ndef g(f):\n    f = jax.jit(f)\n    return f\n", False),
    ("PML303", "import jax\ndef g(f):\n    for i in range(2):\n        f = jax.jit(f)\n    return f\n", True),
    ("PML303", "import jax\ndef g(f):\n    h = jax.jit(f)\n    return jax.jit(h)\n", True),
    # a jit wrapper built per call and called there (PML302); returned or handed on, it is a factory's
    ("PML302", "import jax\ndef g(x):\n    f = jax.jit(h)\n    return f(x)\n", True),
    ("PML302", "import jax\ndef g(x):\n    f = jax.jit(h)\n    return [f(v) for v in x]\n", True),
    ("PML302", "import jax\ndef g(x):\n    f = jax.jit(h)\n    return f\n", False),
    ("PML302", "import tensorflow as tf\ndef jc(self, f):\n    compiled = tf.function(f)\n"
               "    return lambda *a: call(compiled, *a)\n", False),
    # a custom derivative defined per call: jax's decorators are lifted, tf.custom_gradient is not (PML101)
    ("PML101", "import jax\ndef f(x):\n    @jax.custom_vjp\n    def g(y):\n        return y\n    return g(x)\n", True),
    ("PML101", "import tensorflow as tf\ndef f(x):\n    @tf.custom_gradient\n    def g(y):\n        return y, None\n    return g(x)\n", False),
    # a solver handed a module-level function: nothing per call (PML101); a lambda or a gradient built per call is
    ("PML101", "from phiml import math\ndef op(x):\n    return x\ndef f(y):\n    return math.solve_linear(op, y, math.Solve('CG'))\n", False),
    ("PML101", "from phiml import math\ndef f(y):\n    return math.solve_linear(lambda x: x, y, math.Solve('CG'))\n", True),
    ("PML101", "from phiml import math\ndef loss(x):\n    return x\ndef f(y):\n    return math.gradient(loss)(y)\n", True),
]


@pytest.mark.parametrize("code, source, expected", GATE_CASES)
def test_rule_gates(code: str, source: str, expected: bool):
    assert _passes(code, source) is expected


@pytest.mark.parametrize("code, source", [(c, s) for c, s, expected in GATE_CASES if not expected])
def test_a_gate_that_says_no_is_the_rules_answer(code: str, source: str):
    """Where a gate keeps a file from its rule, the rule run without the pre-filter finds nothing there."""
    settings = Settings(codemods=[by_code(code)], ast_prefilter=False)
    result = process_source(textwrap.dedent(source).encode(), "case.py", settings)
    assert not result.error and not [f for f in result.findings if f.code == code]


def test_helpers_evidence_is_read_only_where_the_flows_finish_their_joins():
    """ast_traced reads helpers' certain parameters only in files with few traced functions: ast_flow.py
    stops after MAX_ANALYSES analyses, and a helper is analysed again whenever its call sites pass more."""
    from rewriter.analysis import ast_traced, trace_values

    assert 2 * ast_traced.HELPER_EVIDENCE_LIMIT < trace_values.MAX_ANALYSES


def test_the_gates_thresholds_are_the_rules():
    """The pre-filter's copy of a rule's threshold, which it cannot import (codemods sit above it)."""
    from codemods.unrolled_loop import MIN_ITERATIONS
    from rewriter.analysis import ast_traced

    assert ast_traced.MIN_ITERATIONS == MIN_ITERATIONS
