"""The analysis core: API resolution by qualified name and jit-context detection (on CPython's `ast`)."""
from __future__ import annotations

import ast
import textwrap

import pytest

from rewriter.analysis.apis import canonical
from rewriter.analysis.ast_module import AstModule
from rewriter.analysis.ast_captures import free_names
from rewriter.analysis.ast_globals import ModuleGlobals
from rewriter.analysis.ast_resolver import NameResolver as AstResolver


def analyse(source: str) -> AstModule:
    return AstModule(textwrap.dedent(source))


def contexts(source: str) -> dict[str, tuple[str, str, frozenset | None]]:
    """function name -> (how, transform, static params)."""
    a = analyse(source)
    return {c.name: (c.how, c.transform.api.name, c.static_params) for c in a.jit.contexts}


@pytest.mark.parametrize(
    "imports, spelled, api",
    [
        ("import jax", "jax.jit", "jax.jit"),
        ("import jax as J", "J.jit", "jax.jit"),
        ("from jax import jit", "jit", "jax.jit"),
        ("from jax import jit as compile_it", "compile_it", "jax.jit"),
        ("from phiml import math", "math.jit_compile", "phiml.math.jit_compile"),
        ("from phiml import math as m", "m.jit_compile", "phiml.math.jit_compile"),
        ("from phiml.math import jit_compile as jc", "jc", "phiml.math.jit_compile"),
        ("import phiml.math", "phiml.math.jit_compile", "phiml.math.jit_compile"),
        ("from phi import math", "math.jit_compile", "phiml.math.jit_compile"),
        ("from phi.flow import *", "math.jit_compile", "phiml.math.jit_compile"),
        ("from phi.flow import *", "jit_compile", "phiml.math.jit_compile"),
        ("from phiml import *", "jit_compile", "phiml.math.jit_compile"),
        ("import tensorflow as tf", "tf.function", "tensorflow.function"),
        ("import torch", "torch.compile", "torch.compile"),
    ],
)
def test_decorator_spellings_resolve(imports: str, spelled: str, api: str):
    found = contexts(f"{imports}\n@{spelled}\ndef f(x):\n    return x\n")
    assert found["f"][:2] == ("decorator", api)


def test_unrelated_names_do_not_resolve():
    found = contexts(
        """
        def jit(f):
            return f
        class math:
            jit_compile = staticmethod(jit)
        @jit
        def f(x): return x
        @math.jit_compile
        def g(x): return x
        """
    )
    assert found == {}


def test_star_import_does_not_capture_local_or_builtin_names():
    a = analyse("from phiml import *\nmath = None\nmap(len, [])\nmath.jit_compile\n")
    calls = [n for n in a.tree.body[1:]]
    expr = calls[2].value
    assert a.names.qualified_names(expr) == {"math.jit_compile"}  # the local `math = None`, not PhiML's
    assert a.names.api(expr) is None
    builtin_map = calls[1].value.func
    assert a.names.api(builtin_map) is None


@pytest.mark.parametrize(
    "decorator, static",
    [
        ("@jax.jit", frozenset()),
        ("@partial(jax.jit, static_argnums=1)", frozenset({"n"})),
        ("@partial(jax.jit, static_argnums=(0, 2))", frozenset({"x", "mode"})),
        ("@partial(jax.jit, static_argnums=-1)", frozenset({"mode"})),
        ("@functools.partial(jax.jit, static_argnames=('mode',))", frozenset({"mode"})),
        ("@partial(jax.jit, static_argnames='n')", frozenset({"n"})),
        ("@math.jit_compile", frozenset()),
        ("@math.jit_compile(auxiliary_args='n, mode')", frozenset({"n", "mode"})),
        ("@math.jit_compile(auxiliary_args=AUX)", None),
        ("@partial(jax.jit, static_argnums=N)", None),
    ],
)
def test_static_parameters(decorator: str, static):
    source = f"""
    import functools
    from functools import partial
    import jax
    from phiml import math
    @{decorator[1:]}
    def f(x, n, mode):
        return x
    """
    assert contexts(source)["f"] == ("decorator", contexts(source)["f"][1], static)


def test_module_level_wrap_and_partial_application():
    found = contexts(
        """
        import jax
        from functools import partial
        from phiml import math
        def g(x, k): return x * k
        def h(x, n): return x
        def lam_user(x): return x
        g_jit = jax.jit(g, static_argnums=1)
        h_jit = partial(jax.jit, static_argnames='n')(h)
        l_jit = math.jit_compile(lambda x: x + 1)
        w_jit = math.jit_compile(auxiliary_args='n')(h)
        """
    )
    assert found["g"] == ("wrapped", "jax.jit", frozenset({"k"}))
    assert found["h"][0] == "wrapped" and found["h"][2] in (frozenset({"n"}),)
    assert found["<lambda>"] == ("wrapped", "phiml.math.jit_compile", frozenset())


def test_methods_and_static_self():
    found = contexts(
        """
        import jax
        from functools import partial
        class Model:
            @partial(jax.jit, static_argnums=0)
            def apply(self, x):
                return x * self.scale
        """
    )
    assert found["apply"] == ("decorator", "jax.jit", frozenset({"self"}))


def test_stacked_decorators():
    found = contexts(
        """
        import jax
        from functools import lru_cache
        @jax.vmap
        @lru_cache
        @jax.jit
        def f(x): return x
        """
    )
    assert found["f"][:2] == ("decorator", "jax.jit")


def test_helpers_called_from_traced_functions_are_traced():
    found = contexts(
        """
        import jax
        def leaf(x): return x
        def helper(x): return leaf(x) + 1
        def unused(x): return x
        @jax.jit
        def f(x): return helper(x)
        """
    )
    assert found["helper"][0] == "called" and found["leaf"][0] == "called"
    assert "unused" not in found


def test_bound_methods_jitted_and_methods_called_through_self_are_traced():
    found = contexts(
        """
        import jax
        from phiml import math
        class Sim:
            def __init__(self):
                self.fast = jax.jit(self.step)
                self.slow = math.jit_compile(self.other)
            def step(self, x): return self.helper(x)
            def helper(self, x): return x
            def other(self, x): return x
            def unused(self, x): return x
            @staticmethod
            def free(x): return x
        class Elsewhere:
            def helper(self, x): return x
        """
    )
    assert found["step"] == ("wrapped", "jax.jit", None)  # bound: its argnums do not count `self`
    assert found["other"][:2] == ("wrapped", "phiml.math.jit_compile")
    assert found["helper"][0] == "called" and "unused" not in found
    helpers = [c for c in analyse(textwrap.dedent('''
        import jax
        class Sim:
            def __init__(self):
                self.fast = jax.jit(self.step)
            def step(self, x): return self.helper(x)
            def helper(self, x): return x
        class Elsewhere:
            def helper(self, x): return x
        ''')).jit.contexts if c.name == "helper"]
    assert len(helpers) == 1  # the class's own method, not a namesake of another class


def test_jitted_value_through_names():
    a = analyse(
        """
        import jax
        @jax.jit
        def f(x): return x
        g = jax.jit(lambda x: x)
        h = f
        def plain(x): return x
        f
        g
        plain
        """
    )
    exprs = [stmt.value for stmt in a.tree.body[-3:]]
    assert [a.jit.jitted_value(e) is not None for e in exprs] == [True, True, False]


@pytest.mark.parametrize("name, expected", [
    ("phi.math.jit_compile", "phiml.math.jit_compile"),
    ("phiml.math._functional.jit_compile", "phiml.math.jit_compile"),
    ("phiml.jit_compile", "phiml.math.jit_compile"),
    ("jax.numpy.where", "jax.numpy.where"),
])
def test_canonical_names(name: str, expected: str):
    assert canonical(name) == expected


def _read(source: str) -> tuple[ast.Module, AstResolver]:
    tree = ast.parse(textwrap.dedent(source))
    return tree, AstResolver(tree)


def test_free_names_classification():
    tree, names = _read(
        """
        import jax
        SCALE = 2
        def outer(lr):
            local = 1
            return jax.jit(lambda p: p * lr * SCALE + local + len([p]) + undefined_thing)
        """
    )
    call = tree.body[2].body[1].value
    where = {f.node.id: f.where for f in free_names(names, call)}
    assert where == {"jax": "global", "lr": "local", "SCALE": "global", "local": "local", "len": "builtin", "undefined_thing": "unknown"}


def test_unstable_globals():
    _tree, names = _read(
        """
        A = 1
        B = []
        C = 1
        C = 2
        D = {}
        E = 0
        F = 3
        def f():
            global E
            E = 1
            B.append(1)
            D['k'] = 1
        """
    )
    reasons = {n: ModuleGlobals(names).unstable_reason(n) for n in "ABCDEF"}
    assert reasons["A"] is None and reasons["F"] is None
    assert all(reasons[n] for n in "BCDE")


def test_module_configuration_is_not_a_mutation_of_the_module_name():
    _tree, names = _read(
        """
        import jax
        import jax.numpy
        import os
        import numpy as np
        from jax import config
        HISTORY = []
        jax.config.update("jax_enable_x64", True)
        os.environ["MODE"] = "fast"
        config.update("jax_debug_nans", True)
        HISTORY.append(1)
        jax.numpy.add(1, 2)  # functions of a module named like container methods
        os.path.sort_of = 1
        np = None
        def configure(jax, registry):
            jax.config.update("x", 1)  # a parameter: not the module
            registry.append(2)
        """
    )
    stable = ModuleGlobals(names)
    assert stable.unstable_reason("jax", "jax.jit") is None  # two imports of one module are one binding
    assert stable.unstable_reason("jax", "jax.numpy.sin") is None
    assert stable.unstable_reason("jax", "jax.config.jax_enable_x64") == "`jax.config` is changed in place"
    assert stable.unstable_reason("jax", "jax") == "`jax.config` is changed in place"  # the module itself escapes
    assert stable.unstable_reason("jax") == "`jax.config` is changed in place"  # nothing said about the read
    assert stable.unstable_reason("os", "os.path.join") is None
    assert stable.unstable_reason("os", "os.path.sort_of") == "`os.path.sort_of` is changed in place"
    assert stable.unstable_reason("os", "os.environ.get") == "`os.environ` is changed in place"
    assert stable.unstable_reason("config", "config") == "`config` is mutated in place"  # an object, not a module
    assert stable.unstable_reason("HISTORY", "HISTORY") == "`HISTORY` is mutated in place"
    assert stable.unstable_reason("np", "np.float32") == "`np` is bound more than once at module level"
    assert stable.unstable_reason("registry") is None


def test_ast_walks_meet_the_nodes_ast_walk_meets():
    """ast_names' walks are ast.walk without its generator per node: `walk` the same nodes in any order,
    `statements` its statements in its order, `children` as ast.iter_child_nodes, `branches` as it less
    the context and operator singletons; the summary's breadth-first walk (`_globals_and_loads`) meets
    the reads in ast.walk's order and keeps each node's branches."""
    import ast
    from pathlib import Path

    from rewriter.analysis import ast_names
    from rewriter.project.summary import _globals_and_loads

    mixed = ("def f(a, *, b, c=1):\n    global g\n    d = {**a, 'k': b}\n"
             "    match d:\n        case P(x, y=1, z=2):\n            pass\n")  # lists holding None or names
    blocks = ("class C:\n    if a:\n        x = lambda: 1 if b else 2\n    else:\n        pass\n"
              "async def f():\n    async with m() as n:\n        async for i in n:\n            break\n        else:\n            y = 1\n"
              "    while z:\n        continue\n    else:\n        try:\n            pass\n        except E as e:\n            del e\n"
              "        else:\n            import q\n        finally:\n            from r import s\n"
              "try:\n    pass\nexcept* (E, F):\n    pass\nmatch t:\n    case [1, *rest] if rest:\n        u = rest\n")
    sources = [mixed, blocks, *(p.read_bytes() for p in sorted(Path(__file__).resolve().parent.parent.glob("examples/*.py")))]
    for source in sources:
        tree = ast.parse(source)
        expected = list(ast.walk(tree))
        singletons = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
        kids: dict = {}
        met = ast_names.Met()
        _, loads = _globals_and_loads(tree, kids, met)
        inner = {id(n.value) for n in expected if isinstance(n, ast.Attribute)}
        assert loads == met.loads == [n for n in expected if isinstance(n, (ast.Name, ast.Attribute))
                                      and isinstance(n.ctx, ast.Load) and id(n) not in inner]
        assert met.names == {n.id for n in expected if isinstance(n, ast.Name)}
        assert met.marked == [n for n in expected if type(n) in ast_names.Met.MARKED]  # in the walk's order
        assert all(kids[id(n)] == ast_names.branches(n) for n in expected
                   if not isinstance(n, (*singletons, ast.Name, ast.Constant)))
        assert list(ast_names.statements(tree)) == [n for n in expected if isinstance(n, ast.stmt)]
        assert all(ast_names.children(n) == list(ast.iter_child_nodes(n)) for n in expected)
        assert all(ast_names.branches(n) == [c for c in ast.iter_child_nodes(n) if not isinstance(c, singletons)]
                   for n in expected)
    # Nodes built without some of their fields (the kinds read field by field fall back to the table).
    built = [ast.Call(func=ast.Name("f")), ast.Call(args=[ast.Name("a")]), ast.Attribute(), ast.Assign(value=ast.Name("v")),
             ast.BinOp(left=ast.Name("l")), ast.Subscript(slice=ast.Name("s")), ast.Tuple(), ast.arg(arg="x"), ast.Return(),
             ast.keyword(arg="k"), ast.Expr()]
    assert [ast_names.branches(n) for n in built] == [list(ast.iter_child_nodes(n)) for n in built]


def test_literal_value_is_literal_eval():
    """ast_names.literal_value gives what ast.literal_eval gives, and refuses what it refuses, on every
    expression of the golden cases and examples and on literal_eval's own corner cases."""
    import ast
    from pathlib import Path

    from rewriter.analysis.ast_names import literal_value

    corners = ("1", "-1", "+2.5", "--1", "-True", "1+2j", "1-2j", "-1+2j", "2j+1", "1+2", "(1, [2, {3}], {'a': (4,)})",
               "set()", "set(x)", "{1: 2, **d}", "{[1]: 2}", "{[1], 2}", "b'xy'", "...", "None",
               "-'a'", "x", "f(1)", "(1, x)", "[*a]", "1 if a else 2", "-(1+2j)", "1e400", "not 1", "frozenset()")
    roots = [Path(__file__).resolve().parent.parent / name for name in ("golden", "examples")]
    sources = [*corners, *(p.read_bytes() for root in roots for p in sorted(root.rglob("*.py")))]
    checked = 0
    for source in sources:
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if not isinstance(node, ast.expr):
                continue
            try:
                expected = ("value", ast.literal_eval(node))
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as e:
                expected = ("refused", type(e) is RecursionError)
            try:
                got = ("value", literal_value(node))
            except (ValueError, TypeError, RecursionError) as e:
                got = ("refused", type(e) is RecursionError)
            assert got == expected and type(got[1]) is type(expected[1]), ast.unparse(node)
            checked += 1
    assert checked > 10_000


def test_with_enclosing_is_the_pre_order_walk_with_the_node_around():
    """ast_names.with_enclosing: the nodes of some kinds in libcst's pre-order (`in_source_order`), each with the
    innermost node of other kinds around it (a def or lambda, a class passed through; a loop); as a plain
    recursive walk finds them."""
    import ast
    from pathlib import Path

    from rewriter.analysis import ast_names

    def reference(node, around, kinds, enclosing, out):
        if type(node) in kinds:
            out.append((node, around))
        inner = node if type(node) in enclosing else around
        for child in ast_names.in_source_order(node):
            reference(child, inner, kinds, enclosing, out)
        return out

    nested = ("@d(lambda: g(1))\ndef f(a=h(2)):\n    class C:\n        x = k(3)\n        def m(self):\n"
              "            return [n(i) for i in (lambda: p(4))()]\n    y = q(5)\n    async def r():\n"
              "        z = s(lambda t=u(6): v(t))\n    return w(7)\nmodule_level = x(8)\n")
    loopy = "for i in a():\n    while b(i):\n        c(lambda: d())\n    else:\n        e()\nasync def g():\n    async for j in h():\n        k()\n"
    sources = [nested, loopy, *(p.read_bytes() for p in sorted(Path(__file__).resolve().parent.parent.glob("examples/*.py")))]
    loops = frozenset({ast.For, ast.AsyncFor, ast.While})
    for kinds, enclosing in ((frozenset({ast.Call, ast.Assign, ast.FunctionDef, ast.AsyncFunctionDef}), ast_names.FUNCTIONS),
                             (frozenset({ast.Lambda, ast.Name}), ast_names.FUNCTIONS), (frozenset({ast.Call, ast.For}), loops)):
        for source in sources:
            tree = ast.parse(source)
            assert ast_names.with_enclosing(tree, kinds, enclosing) == reference(tree, None, kinds, enclosing, [])
    # (a def's decorators and defaults are met in its subtree, as libcst's walk meets them)
    found = [(ast.unparse(node)[:4], getattr(around, "name", type(around).__name__))
             for node, around in ast_names.with_enclosing(ast.parse(nested), frozenset({ast.Call}), ast_names.FUNCTIONS)]
    assert found == [("d(la", "f"), ("g(1)", "Lambda"), ("h(2)", "f"), ("k(3)", "f"), ("n(i)", "m"), ("(lam", "m"),
                     ("p(4)", "Lambda"), ("q(5)", "f"), ("s(la", "r"), ("u(6)", "Lambda"), ("v(t)", "Lambda"),
                     ("w(7)", "f"), ("x(8)", "NoneType")]
