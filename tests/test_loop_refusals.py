"""PML202, PML203 and PML206 decide in rewriter/emit/ast_loops.py which names a loop carries and what its body
may not hold. A rewrite that would change what the code computes is refused, the finding kept with its reason:
a side effect hidden in a target, a `:=` in the loop's head, a name a `match` captures, a name an enclosing loop
reads on its next pass, a name that only looks bound before the loop, a counter rebound by a comprehension's `:=`.
The common forms keep their fix (so these tests cannot pass by refusing everything)."""
from __future__ import annotations

import ast

import pytest

from rewriter.analysis.ast_module import AstModule
from rewriter.analysis.ast_structure import defined_before
from rewriter.ast_rule import AstFile
from rewriter.emit.branches import Refused
from rewriter.engine import process_source
from rewriter.registry import by_code
from rewriter.settings import Settings

SIDE_EFFECT = "not rewritten: an attribute or item assignment inside the loop body (a side effect)"
FIRST_ASSIGNED = "is first assigned inside the loop and read after it"


def _finding(source: str, code: str):
    result = process_source(source.encode(), "x.py", Settings(codemods=(by_code(code),), original_positions=True,
                                                              rewrite=False))
    assert result.error is None, result.error
    found = [f for f in result.findings if f.code == code]
    assert len(found) == 1, [(f.code, f.message, f.note) for f in result.findings]
    return found[0]


def _refused(source: str, code: str) -> str:
    finding = _finding(source, code)
    assert finding.fix is None and finding.note.startswith("not rewritten: "), (finding.note, source)
    return finding.note


def _fixed(source: str, code: str) -> None:
    finding = _finding(source, code)
    assert finding.fix is not None, (finding.note, source)


def _indented(body: str, depth: int) -> str:
    return "".join(" " * (4 * depth) + line + "\n" if line else "\n" for line in body.strip("\n").split("\n"))


def jax_for(body: str, after: str = "return x", before: str = "") -> str:
    """PML202 on jax: `for i in range(n)` with a traced `n`."""
    return ("import jax\n\n\n@jax.jit\ndef f(x, n, obj, items):\n" + _indented(before, 1)
            + "    for i in range(n):\n" + _indented(body, 2) + _indented(after, 1))


def jax_while(body: str, after: str = "return x", before: str = "", test: str = "x.sum() > 1") -> str:
    """PML203 on jax: `while` on a traced condition."""
    return ("import jax\n\n\n@jax.jit\ndef f(x, obj, items):\n" + _indented(before, 1)
            + f"    while {test}:\n" + _indented(body, 2) + _indented(after, 1))


def jax_scan(body: str, after: str = "return x", before: str = "", head: str = "for _ in range(100):") -> str:
    """PML206 on jax: a long static loop."""
    return ("import jax\n\n\n@jax.jit\ndef f(x, obj, items):\n" + _indented(before, 1)
            + f"    {head}\n" + _indented(body, 2) + _indented(after, 1))


def phiml_for(body: str, after: str = "return x", before: str = "") -> str:
    """PML202 on PhiML: a masked loop, bounded by the program."""
    return ("from phiml import math\n\n\n@math.jit_compile\ndef f(x, n, obj, items):\n" + _indented(before, 1)
            + "    for i in range(math.minimum(n, 8)):\n" + _indented(body, 2) + _indented(after, 1))


def phiml_while(body: str, after: str = "return x", before: str = "it = 0", test: str = "(x > 1).any") -> str:
    """PML203 on PhiML: a masked loop bounded by the counter `it < 20`."""
    return ("from phiml import math\n\n\n@math.jit_compile\ndef f(x, obj, items):\n" + _indented(before, 1)
            + f"    while {test} and it < 20:\n" + _indented(body + "\nit += 1", 2) + _indented(after, 1))


# -- the common forms keep their fix -------------------------------------------------------------------
COMMON = {
    "jax fori_loop": (jax_for("x = x * 2"), "PML202"),
    "jax fori_loop, a tuple of names": (jax_for("x, y = x * 2, x"), "PML202"),
    "jax fori_loop, a nested loop carrying its own values": (jax_for("for k in range(3):\n    x = x * 2"), "PML202"),
    "jax fori_loop inside a static loop": (
        "import jax\n\n\n@jax.jit\ndef f(x, n):\n    for k in range(3):\n        for i in range(n):\n"
        "            x = x * 2\n    return x\n", "PML202"),
    "jax fori_loop, a name annotated with its value": (
        jax_for("y = x * i\nx = x + 1", "return x, y", "y: jax.Array = x"), "PML202"),
    "jax fori_loop, a name bound inside its handler": (
        "import jax\n\n\n@jax.jit\ndef f(x, n):\n    try:\n        x = x + 0\n    except ValueError as y:\n"
        "        for i in range(n):\n            y = x * i\n        return y\n    return x\n", "PML202"),
    "jax while_loop": (jax_while("x = x / 2"), "PML203"),
    "jax while_loop, a walrus in the body only": (jax_while("x = (y := x / 2)", before="y = x", after="return x, y"),
                                                  "PML203"),
    "jax scan": (jax_scan("x = x * 2.0 + 1.0"), "PML206"),
    "phiml masked for": (phiml_for("x = x * 2"), "PML202"),
    "phiml masked while": (phiml_while("x = x / 2"), "PML203"),
}


@pytest.mark.parametrize("name", COMMON)
def test_the_common_forms_keep_their_fix(name: str):
    _fixed(*COMMON[name])


# -- 1. a side effect in a target, anywhere in it ---------------------------------------------------------
TARGETS = {
    "a whole attribute": "obj.b = 1",
    "an item": "items[0] = 1",
    "an attribute in a tuple": "x, obj.b = x * 2, 1",
    "an attribute in a list": "[x, obj.a] = [x * 2, 1]",
    "an attribute starred": "x, *obj.b = x * 2, 1, 2",
    "an item in a tuple": "items[0], x = 1, x * 2",
    "an augmented attribute": "obj.b += 1",
    "an augmented item": "items[0] += 1",
    "an annotated attribute": "obj.b: int = 1",
    "an annotated item without value": "items[0]: int",
    "a loop's target": "for obj.k in range(2):\n    x = x + 1",
    "a with's target": "with items as obj.f:\n    x = x + 1",
    "a with's target in a tuple": "with items as (y, obj.f):\n    x = x + 1",
    "a comprehension's target": "ys = [0 for obj.k in range(2)]",
    "in a branch": "if True:\n    x, obj.b = x * 2, 1",
}
RULES = {"PML202 jax": (jax_for, "PML202"), "PML203 jax": (jax_while, "PML203"), "PML206 jax": (jax_scan, "PML206"),
         "PML202 phiml": (phiml_for, "PML202"), "PML203 phiml": (phiml_while, "PML203")}


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("target", TARGETS)
def test_an_attribute_or_item_target_anywhere_is_a_side_effect(rule: str, target: str):
    write, code = RULES[rule]
    assert _refused(write("x = x * 2\n" + TARGETS[target]), code) == SIDE_EFFECT


@pytest.mark.parametrize("rule", RULES)
def test_an_attribute_or_item_deleted_is_a_side_effect(rule: str):
    write, code = RULES[rule]
    for target in ("obj.b", "items[0]", "x, items[0]"):
        assert _refused(write(f"x = x * 2\ndel {target}"), code) == \
            "not rewritten: an attribute or item deletion inside the loop body (a side effect)"


def test_the_first_reason_met_is_kept_where_a_body_already_was_refused():
    """`check_body` meets the reasons in the order libcst's walk did (the last statement first): a body it
    refused before for a call keeps that reason when it also holds a side effect in a target."""
    for body in ("print(x)\nx = x * 2\nobj.b += 1", "print(x)\nx, obj.b = x * 2, 1", "obj.b += 1\nprint(x)"):
        assert _refused(jax_for(body), "PML202") == \
            "not rewritten: a call evaluated for its side effect (`print`) inside the loop body"
    assert _refused(jax_for("x, obj.b = x * 2, 1\nbreak"), "PML202").startswith("not rewritten: `break`")


# -- 2. a `:=` in the loop's own head ---------------------------------------------------------------------
WALRUS = "is bound by `:=` in the loop's"


def test_a_walrus_in_the_head_is_named():
    """check_head names what the `:=` binds; one in a lambda binds in the lambda only."""
    from rewriter.emit.ast_loops import check_head
    with pytest.raises(Refused, match="`s` is bound by `:=` in the loop's condition"):
        check_head(ast.parse("(s := x.sum()) > 1", mode="eval").body, "loop's condition")
    with pytest.raises(Refused, match="`t` is bound by `:=` in the loop's iterable"):
        check_head(ast.parse("range(len([(t := 1) for _ in x]))", mode="eval").body, "loop's iterable")
    check_head(ast.parse("range(f(lambda: (s := 1)))", mode="eval").body, "loop's iterable")
    check_head(ast.parse("x.sum() > 1", mode="eval").body, "loop's condition")


HEADS = {
    "PML203 jax": (jax_while("x = x / 2", "return x, s", test="(s := x.sum()) > 1"), "PML203"),
    "PML203 phiml": (phiml_while("x = x / 2", "return x, s", test="(s := x.sum) > 1"), "PML203"),
    "PML202 jax": (jax_for("x = x * 2", "return x, m").replace("range(n)", "range((m := n))"), "PML202"),
    "PML202 phiml": (phiml_for("x = x * 2", "return x, m").replace("math.minimum(n, 8)", "math.minimum((m := n), 8)"),
                     "PML202"),
    "PML206 jax": (jax_scan("x = x * 2.0 + 1.0", "return x, m", head="for i in range(len(m := x)):"), "PML206"),
}


@pytest.mark.parametrize("name", HEADS)
def test_a_walrus_in_the_loops_head_is_refused(name: str):
    """(Needs the rule to call `check_head` in its `_plan`.)"""
    assert WALRUS in _refused(*HEADS[name])


# -- 3. a name a `match` captures inside the loop, read after it --------------------------------------------
CAPTURES = {
    "a star": ("case [a, *b]:\n    x = x * 2", "b"),
    "a sequence item": ("case [a, *b]:\n    x = x * 2", "a"),
    "a mapping value": ("case {'k': v}:\n    x = x * 2", "v"),
    "a mapping's rest": ("case {'k': 1, **rest}:\n    x = x * 2", "rest"),
    "a class keyword": ("case Point(x=px):\n    x = x * 2", "px"),
    "an as": ("case _ as w:\n    x = x * 2", "w"),
}


def _matching(captures: str) -> str:
    return "x = x * 2\nmatch MODE:\n" + _indented(captures, 1)


@pytest.mark.parametrize("rule", ["PML202 jax", "PML203 jax", "PML206 jax"])
@pytest.mark.parametrize("capture", CAPTURES)
def test_a_name_a_match_captures_in_the_loop_and_read_after_it_is_refused(rule: str, capture: str):
    write, code = RULES[rule]
    case, name = CAPTURES[capture]
    source = "MODE = (1, 2)\n\n\nclass Point:\n    x = 0\n\n\n" + write(_matching(case), f"return x, {name}")
    assert _refused(source, code) == f"not rewritten: `{name}` {FIRST_ASSIGNED}"


def test_a_capture_of_a_name_bound_before_is_carried():
    source = "MODE = (1, 2)\n\n\n" + jax_for(_matching("case [a, *b]:\n    x = x * 2"), "return x, a", "a = x")
    finding = _finding(source, "PML202")
    assert finding.fix is not None and "`a`" in finding.fix.description, finding.fix


# -- 4. a name an enclosing loop reads on its next pass ---------------------------------------------------
def _nested(outer: str, inner: str, inner_body: str, before: str = "", outer_body: str = "x = x + z") -> str:
    """`inner` inside `outer`, whose body reads `z` before it: the inner loop's first assignment of `z`."""
    return ("import jax\n\n\n@jax.jit\ndef f(x, n):\n" + _indented(before, 1) + f"    {outer}\n"
            + _indented(f"{outer_body}\n{inner}\n" + _indented(inner_body, 1), 2) + "    return x\n")


NESTED = {
    "PML202 in a for": (_nested("for k in range(3):", "for i in range(n):", "z = x * i\nx = x + 1"), "PML202"),
    "PML202 in a for, read under a condition": (
        _nested("for k in range(3):", "for i in range(n):", "z = x * i\nx = x + 1",
                outer_body="if k > 0:\n    x = x + z"), "PML202"),
    "PML202 in a while": (_nested("while k < 3:", "for i in range(n):", "z = x * i\nx = x + 1", "k = 0",
                                  "x = x + z\nk = k + 1"), "PML202"),
    "PML203 in a for": (_nested("for k in range(3):", "while x.sum() > 1:", "z = x / 2\nx = x / 2"), "PML203"),
    "PML206 in a for": (_nested("for k in range(3):", "for _ in range(100):", "z = x * 2.0\nx = x + 1.0"), "PML206"),
    "PML202 two levels up": (_nested("for k in range(3):", "for j in range(2):\n    for i in range(n):",
                                     "    z = x * i\n    x = x + 1"), "PML202"),
}


@pytest.mark.parametrize("name", NESTED)
def test_a_name_an_enclosing_loop_reads_on_its_next_pass_is_refused(name: str):
    assert "`z` is first assigned inside the loop and read" in _refused(*NESTED[name])


def test_the_enclosing_loops_own_condition_reads_on_its_next_pass():
    source = ("import jax\n\n\n@jax.jit\ndef f(x, n, k):\n    while k < 3 or z:\n        k = k + 1\n"
              "        for i in range(n):\n            z = x * i\n            x = x + 1\n    return x\n")
    assert "`z` is first assigned inside the loop and read" in _refused(source, "PML202")


def test_an_enclosing_loop_that_does_not_read_the_name_keeps_the_fix():
    source = ("import jax\n\n\n@jax.jit\ndef f(x, n):\n    for k in range(3):\n        x = x + k\n"
              "        for i in range(n):\n            z = x * i\n            x = x + z\n    return x\n")
    _fixed(source, "PML202")


def test_a_loop_in_an_enclosing_loops_else_runs_once():
    source = ("import jax\n\n\n@jax.jit\ndef f(x, n):\n    for k in range(3):\n        x = x + 1\n    else:\n"
              "        for i in range(n):\n            z = x * i\n            x = x + z\n    return x\n")
    _fixed(source, "PML202")


# -- 5. a name that has no value before the loop -----------------------------------------------------------
UNBOUND = {
    "an annotation without value": "y: jax.Array",
    "an except's name": "try:\n    x = x + 0\nexcept ValueError as y:\n    pass",
}


@pytest.mark.parametrize("rule", ["PML202 jax", "PML203 jax", "PML206 jax"])
@pytest.mark.parametrize("before", UNBOUND)
def test_a_name_without_a_value_before_the_loop_is_not_carried(rule: str, before: str):
    write, code = RULES[rule]
    source = write("y = x * 2\nx = x + 1", "return x, y", UNBOUND[before])
    assert _refused(source, code) == f"not rewritten: `y` {FIRST_ASSIGNED}"


@pytest.mark.parametrize("before", UNBOUND)
def test_a_name_without_a_value_before_a_masked_loop_is_refused(before: str):
    source = phiml_for("y = x * 2\nx = x + 1", "return x, y", UNBOUND[before].replace("jax.Array", "math.Tensor"))
    assert _refused(source, "PML202") == \
        "not rewritten: `y` has no value before the loop (a masked iteration must keep it unchanged)"


def test_an_import_binds_a_value():
    source = "import jax\n\n\n@jax.jit\ndef f(x, n):\n    import numpy as y\n" \
             "    for i in range(n):\n        y = x * i\n        x = x + 1\n    return x, y\n"
    finding = _finding(source, "PML202")
    assert finding.fix is not None and "carrying `y`, `x`" in finding.fix.description, finding.note


DEFINED = '''
def f(x):
    a: int
    b: int = 1
    import os as c
    try:
        pass
    except ValueError as d:
        inside = 1
    after = 1
'''


def test_defined_before_counts_values_only():
    module = AstModule(DEFINED)
    file = AstFile("d.py", module, module)
    fn = module.tree.body[0]
    handler = fn.body[3].handlers[0]
    inside, after = handler.body[0], fn.body[4]
    try:
        assert [defined_before(file.names, fn, n, after) for n in "abcd"] == [False, True, True, False]
        assert defined_before(file.names, fn, "d", inside)
        assert defined_before(file.names, fn, "x", after)
    finally:
        file.release()


# -- 6. a counter a comprehension's `:=` rebinds -------------------------------------------------------------
def test_a_counter_a_comprehension_rebinds_does_not_start_at_zero():
    source = phiml_while("x = x / 2", before="it = 0\nys = [(it := 3) for _ in range(2)]")
    assert "a masked loop needs a bound the program gives" in _refused(source, "PML203")


def test_a_counter_a_match_rebinds_does_not_start_at_zero():
    before = "it = 0\nmatch MODE:\n    case [it, _]:\n        pass"
    source = "MODE = (1, 2)\n\n\n" + phiml_while("x = x / 2", before=before)
    assert "a masked loop needs a bound the program gives" in _refused(source, "PML203")
