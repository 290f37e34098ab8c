"""The traced-value analysis (what is a tracer inside a jit context), the emitters' spelling of
framework functions, and `explain-trace`."""
from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest
from click.testing import CliRunner

from rewriter.analysis.ast_module import AstModule
from rewriter.cli import main
from rewriter.emit import Spelling
from rewriter.explain_trace import explain_trace
from tests.harness.ast_files import ast_file
from tests.harness.ast_files import verdicts as ast_verdicts

HEADER = "import jax\nimport jax.numpy as jnp\nfrom functools import partial\nfrom phiml import math\nfrom phiml.math import spatial\n"


def verdicts(source: str) -> dict[str, str]:
    """code of every condition / trip count in traced functions -> static | traced | unknown."""
    return ast_verdicts(ast_file(HEADER + textwrap.dedent(source)))


def test_static_by_construction_under_phiml_jit():
    found = verdicts("""
        N = 3

        @math.jit_compile(auxiliary_args='mode')
        def f(x, mode, bias=None, dtype=None):
            if x.shape.get_size('x') > 2: pass
            if x.shape.spatial.rank > 1: pass
            if mode == 'a': pass
            if bias is None: pass
            if isinstance(x, float): pass
            if len(x.shape) > N: pass
            if math.always_close(x, 0): pass
            if x.available: pass
            if dtype == 'float32': pass
            for i in range(x.shape.get_size('x')): pass
            for item in x.shape.names: pass
    """)
    assert set(found.values()) == {"static"}, found


def test_traced_through_assignments_unpacking_and_comprehensions():
    found = verdicts("""
        @math.jit_compile
        def f(x, y):
            a, b = x * 2, 3
            c = [v * 2 for v in (a, y)]
            d = c[0]
            d += 1
            if (d > 0).all: pass
            if b > 2: pass
            if (x > 0).any and b > 1: pass
            while math.any(a > 1): a = a / 2
    """)
    assert found == {"(d > 0).all": "traced", "b > 2": "static", "(x > 0).any and b > 1": "traced",
                     "math.any(a > 1)": "traced"}


def test_a_helpers_returned_pair_is_unpacked_element_by_element():
    """Every `return` gives a pair: each target gets its element's value (joined over the returns), not
    the whole pair's. A pair returned once and something else elsewhere, or a starred target, keeps the
    whole value."""
    found = verdicts("""
        def checked(key):
            if isinstance(key, int):
                return jnp.asarray(key), True
            return key, False

        def mixed(key):
            if isinstance(key, int):
                return key, True
            return key

        @jax.jit
        def f(key):
            typed, wrapped = checked(key)
            first, *rest = checked(key)
            a, b = mixed(key)
            if wrapped: pass
            if typed.sum() > 0: pass
            if rest[0]: pass
            if b: pass
    """)
    assert found == {"isinstance(key, int)": "static", "wrapped": "static", "typed.sum() > 0": "traced", "rest[0]": "traced",
                     "b": "traced"}


def test_one_line_suites_are_part_of_the_flow():
    found = verdicts("""
        @math.jit_compile(auxiliary_args='flag')
        def f(x, flag):
            y = 1
            if flag: y = x
            if (y > 0).all: pass
    """)
    assert found == {"flag": "static", "(y > 0).all": "traced"}


def test_helpers_inherit_the_callers_tracedness():
    found = verdicts("""
        def helper(v, k):
            if (v > 0).all: pass
            if k > 1: pass
            return v

        @math.jit_compile(auxiliary_args='k')
        def f(x, k):
            return helper(x, k)
    """)
    assert found == {"(v > 0).all": "traced", "k > 1": "static"}


def test_nested_helpers_see_the_enclosing_values():
    found = verdicts("""
        @math.jit_compile(auxiliary_args='n')
        def f(x, n):
            y = x * 2

            def clipped(v):
                if (y > v).all: pass
                if n > 1: pass
                return v

            return clipped(x)
    """)
    assert found == {"(y > v).all": "traced", "n > 1": "static"}


def test_functions_run_by_jax_primitives_are_traced():
    found = verdicts("""
        def body(carry, x):
            if carry > 0: pass
            return carry, x

        @jax.jit
        def f(xs, n):
            return jax.lax.scan(body, 0., xs), jax.lax.fori_loop(0, n, lambda i, v: v if v > i else -v, xs)
    """)
    assert found == {"carry > 0": "traced", "v > i": "traced"}


def test_static_arguments_and_jax_staging():
    found = verdicts("""
        @partial(jax.jit, static_argnames=('n',))
        def f(x, n):
            for _ in range(n): pass
            z = jnp.zeros(())
            if z < 1: pass
            for row in x: pass
            if jnp.issubdtype(x.dtype, jnp.floating): pass
    """)
    assert found == {"range(n)": "static", "z < 1": "traced", "x": "static",
                     "jnp.issubdtype(x.dtype, jnp.floating)": "static"}


def test_isinstance_narrows_and_zip_binds_element_wise():
    found = verdicts("""
        FLAGS = (True, False)

        @jax.jit
        def f(xs):
            for x, flag in zip(xs, FLAGS):
                y = x * 2 if flag else x
            for i, x in enumerate(xs):
                if i > 0: pass
            if isinstance(xs, int) and xs < 0: pass
    """)
    assert found == {"flag": "static", "i > 0": "static", "isinstance(xs, int) and xs < 0": "static",
                     "zip(xs, FLAGS)": "static", "enumerate(xs)": "static"}


def test_unknown_when_an_attribute_may_be_a_static_field():
    found = verdicts("""
        @math.jit_compile
        def f(state):
            if state.step > 3: pass
            if (state.values > 0).all: pass
    """)
    assert found == {"state.step > 3": "unknown", "(state.values > 0).all": "traced"}


def test_jit_compile_linear_keeps_extra_parameters_auxiliary():
    found = verdicts("""
        @math.jit_compile_linear
        def op(x, order=2):
            if order > 2: pass
            if (x > 0).all: pass
    """)
    assert found == {"order > 2": "static", "(x > 0).all": "traced"}


@pytest.mark.parametrize("imports,module,name,spelled,added", [
    ("from phiml import math\n", "phiml.math", "where", "math.where", []),
    ("import phiml.math as pm\n", "phiml.math", "where", "pm.where", []),
    ("from phiml.math import where\n", "phiml.math", "where", "where", []),
    ("from phi.flow import *\n", "phiml.math", "where", "math.where", []),
    ("import jax\n", "jax.numpy", "where", "jax.numpy.where", []),
    ("import jax.numpy as jnp\n", "jax.numpy", "where", "jnp.where", []),
    ("import numpy as np\n", "jax.lax", "cond", "lax.cond", [("jax", "lax", None)]),
    ("import math\n", "phiml.math", "where", "math_2.where", [("phiml", "math", "math_2")]),
    ("import tensorflow as tf\n", "tensorflow", "cond", "tf.cond", []),
])
def test_spelling_uses_the_files_imports(imports, module, name, spelled, added):
    a = AstModule(imports + "x = 1\n")
    spelling = Spelling(a.names, a.identifiers)
    assert cst.Module([]).code_for_node(spelling(module, name)) == spelled
    assert spelling.imports == added


def test_explain_trace_gives_the_derivation(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(HEADER + textwrap.dedent("""
        @math.jit_compile(auxiliary_args='mode')
        def f(x, mode):
            y = x * 2
            if (y > 0).all and mode == 'a':
                return y
            return x
    """))
    explanations, note = explain_trace(path.read_text(), 10)
    assert note is None and len(explanations) == 1
    e = explanations[0]
    assert e.verdict == "traced" and "`x`: parameter of `f`" in e.why and "`y` (line 9)" in e.why
    result = CliRunner().invoke(main, ["explain-trace", f"{path}:10"])
    assert result.exit_code == 0 and "TRACED" in result.output
    result = CliRunner().invoke(main, ["explain-trace", f"{path}:2"])
    assert "not inside a jit-compiled function" in result.output
    result = CliRunner().invoke(main, ["explain-trace", "nowhere"])
    assert result.exit_code != 0 and "FILE:LINE" in result.output


def test_a_containers_length_and_truth_are_python_values():
    """A list, tuple, set or dict built in the function holds tracers but is no tracer: iterating it runs
    as often as it holds, and its truth is its length. It stays one where it is the same object (a name,
    a helper's parameter, `xs.append(v)`, a starred target, a tree's leaves) and not where an operation
    makes something else of it (an element, a comparison)."""
    found = verdicts("""
        def helper(lst):
            if not lst: pass
            return lst

        @jax.jit
        def f(x, ys, v):
            out = []
            for y in ys:
                out.append(x * y)
            if out: pass
            parts = [x * i for i in range(3)]
            for p in parts: pass
            pair = (v.a, v.b)
            for q in pair: pass
            if helper(parts): pass
            leaves, tree = jax.tree_util.tree_flatten(x)
            if leaves: pass
            if leaves and tree: pass  # (one of the two: a list or a tree definition)
            first, *rest = x, x, x
            if rest: pass
            if parts[0]: pass
            if parts == out: pass
            if not parts: pass
            maybe = parts if v else x
            if maybe: pass
    """)
    assert found == {"ys": "static", "out": "static", "parts": "static", "pair": "static", "helper(parts)": "static",
                     "not lst": "static", "leaves": "static", "leaves and tree": "static", "rest": "static",
                     "parts[0]": "traced", "parts == out": "traced", "not parts": "static", "v": "traced",
                     "maybe": "traced"}


def test_and_or_give_one_of_their_objects():
    """`a and b` / `a or b` is `a` or `b`: lists (or a list and a Python value) have Python truth, but
    the truth of a tracer on either side is traced, and it is asked while the expression runs. A name
    bound to a list in one branch and to `None` in the other is still one of them; `arr += [x]` of a
    NumPy array is no list. `tree_leaves` returns a new list of the tree's leaves."""
    found = verdicts("""
        import numpy as np

        @jax.jit
        def f(x, ys, v):
            parts = [x * i for i in range(3)]
            if parts and [x]: pass
            if parts or None: pass
            if x and parts: pass
            if parts and x: pass
            zs = ys or [x]
            if zs: pass
            out = None
            if v.shape[0] > 1:
                out = [x]
            if out: pass
            arr = np.zeros(3)
            arr += [x]
            if arr: pass
            acc = []
            acc += [x]
            if acc: pass
            leaves = jax.tree_util.tree_leaves(ys)
            if leaves: pass
            for leaf in leaves:
                if leaf: pass
    """)
    assert found == {"parts and [x]": "static", "parts or None": "static", "x and parts": "traced",
                     "parts and x": "traced", "zs": "traced", "v.shape[0] > 1": "static", "out": "static",
                     "arr": "traced", "acc": "static", "leaves": "static", "leaf": "traced"}


def test_a_helpers_result_is_kept_only_for_what_it_was_read_with():
    """A helper's result is reused only for arguments of the same trace, container, static fields and
    constant (`pick(x.available, x)` is False while tracing, `pick(True, x)` is not), and not where its
    reading met a helper cut off by depth (`h2` read three helpers deep could not read `h3`). A helper
    too deep to read is "cannot tell", not a Python value."""
    found = verdicts("""
        def pick(a, x):
            return a and (x > 0).all

        def h3():
            return jnp.ones(3).sum() > 0

        def h2():
            return h3()

        def h1():
            return h2()

        def h0():
            return h1()

        @math.jit_compile
        def f(x):
            if pick(x.available, x): pass
            if pick(True, x): pass

        @jax.jit
        def g(x):
            if h0(): pass
            if h2(): pass
    """)
    assert found["pick(x.available, x)"] == "static" and found["pick(True, x)"] != "static", found
    assert found["h2()"] == "traced" and found["h0()"] == "unknown", found  # (h3 is four helpers deep from g)


def test_a_dict_filled_by_key_is_still_a_dict():
    found = verdicts("""
        @jax.jit
        def f(x):
            out = {}
            out["a"] = x * 2
            if out: pass
            arr = x
            arr[0] = x
            if arr: pass
    """)
    assert found == {"out": "static", "arr": "traced"}


def test_what_a_container_holds_is_no_container():
    """Iterating or unpacking a container gives its elements: `for y in [x, 1]` makes `y` a tracer,
    whose truth is traced."""
    found = verdicts("""
        @jax.jit
        def f(x):
            for y in [x, 1]:
                if y: pass
            pair = (x, x)
            a, b = pair
            if a: pass
            for i, z in enumerate([x]):
                if z: pass
            for u, w in zip([x], (x,)):
                if u: pass
            [v for v in [x] if v]
    """)
    assert found == {"[x, 1]": "static", "y": "traced", "a": "traced", "enumerate([x])": "static", "z": "traced",
                     "zip([x], (x,))": "static", "u": "traced"}


def test_a_def_nested_in_the_caller_returns_what_its_body_gives_there():
    """A def nested in a traced function and called there is read with the caller's locals at the call:
    its pair's string half stays a Python value. Called from elsewhere, or bound to another name, the
    result is the join of what it is given, as before."""
    found = verdicts("""
        @jax.jit
        def f(x):
            scale = 2.0

            def strip(a, names):
                if names:
                    a = a * scale
                    names = names[1:]
                return a, names

            def scaled(a):
                return a * x

            y, rest = strip(x, "ab")
            if rest == 'b': pass
            z = scaled(1.0)
            if z > 0: pass
            other = strip
            u, v = other(x, "a")
            if v: pass
    """)
    assert found == {"names": "static", "rest == 'b'": "static", "z > 0": "traced", "v": "traced"}


def test_a_helpers_result_is_a_container_only_for_calls_that_pass_one():
    """What a helper returns is read again when a call passes a container where another passed an array
    of the same trace: `h([x])` returns a list, `h(x)` the array itself."""
    found = verdicts("""
        def h(xs):
            return xs

        @jax.jit
        def f(x):
            a = h([x])
            b = h(x)
            if a: pass
            if b: pass
    """)
    assert found == {"a": "static", "b": "traced"}


# -- the values as the rules ask them (AstFile.traced), and where a finding shows a derivation's steps ----
JIT = "import jax\nimport jax.numpy as jnp\n"
FORMS = JIT + (
    "@jax.jit\ndef f(x, n: int = 3):\n    global G, H\n    y = x * 2\n"
    "    if y.sum() > 0 and n and (y, G) and ():\n        y = -y\n    for i, j in zip(y, (y, 1)):\n        y = y + i\n"
    "    while jnp.any(y > 0) or (n and y[0, 1]):\n        y = y - 1\n    s = 'a' f'{y}'\n    return helper(y), [v for v in (y,)]\n"
    "def helper(v):\n    return v if v.sum() > 0 else -v\n")


def _flow(file, name: str):
    return next(f for f in file.traced.flows.values() if f.context.name == name)


def test_every_condition_of_a_chain_is_read_where_it_is_evaluated():
    """`y.sum() > 0 and n and (y, G) and ()`: the chain may be traced, `()` (an empty tuple) is static."""
    from rewriter.analysis.trace_values import Trace

    file = ast_file(FORMS)
    assert ast_verdicts(file) == {"y.sum() > 0 and n and (y, G) and ()": "traced", "zip(y, (y, 1))": "static",
                                  "jnp.any(y > 0) or (n and y[0, 1])": "traced", "v.sum() > 0": "traced"}
    test = next(n for n in ast.walk(_flow(file, "f").context.function) if isinstance(n, ast.If)).test
    assert file.traced.value_at(test, test).trace is Trace.TRACED
    assert file.traced.value_at(test, test.values[0]).trace is Trace.TRACED
    assert file.traced.value_at(test, test.values[-1]).static


def test_a_derivation_is_placed_where_a_finding_shows_it():
    """A step holds an `ast` node, or a Span where `ast` places none (a name `global` declares); a finding
    shows it where libcst places its node (AstFile.span)."""
    from rewriter.analysis.trace_values import Step
    from rewriter.findings import Span

    file = ast_file(FORMS)
    flow = _flow(file, "f")
    steps = {s.label: s.node for s in flow.bound["y"].why if isinstance(s, Step)}
    assert isinstance(steps["`x`"], ast.arg) and file.span(steps["`x`"]) == Span(4, 6, 4, 7)
    assert file.span(steps["`y`"]) == Span(6, 4, 6, 5)
    test = next(n for n in ast.walk(flow.context.function) if isinstance(n, ast.If)).test
    declared = flow.bound["G"].why[0] if "G" in flow.bound else flow.envs[id(test)]["G"].why[0]
    assert declared.node == Span(5, 11, 5, 12) and declared.lines.label(declared.node) == "line 5"


def test_a_file_of_a_newer_grammar_is_read_lowered():
    """PEP 695 and PEP 701 (which CPython 3.11 rejects and libcst reads): the file is read lowered
    (lowering.py), each node where the file has it."""
    from rewriter.analysis.trace_values import Trace

    source = JIT + ("type Vector = list[float]\n@jax.jit\ndef f[T](x, d: dict, n: int = 2):\n"
                    '    if x > n:\n        print(f"{d["k"]} {x}")\n        return x\n    return -x\n')
    file = ast_file(source)
    assert file.python.tree is None and file.reading is not None
    (flow,) = file.traced.flows.values()
    assert ast_verdicts(file) == {"x > n": "traced"}
    call = next(n for n in ast.walk(flow.context.function) if isinstance(n, ast.Call))
    assert file.traced.value_anywhere(call.args[0]).trace is Trace.TRACED  # (the f-string holds `x`)
    assert file.span(call.args[0]).line == 7
