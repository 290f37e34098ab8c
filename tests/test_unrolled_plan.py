"""PML206's plan on `ast` where its statements are not one to a line, and where a stacked list is read
otherwise than stacked once after the loop (found by the review of the move to `ast`)."""
from __future__ import annotations

from rewriter.engine import process_source
from rewriter.registry import by_code
from rewriter.settings import Settings

HEAD = "import jax\nimport jax.numpy as jnp\n\n\n"


def _run(code: str, rewrite: bool = False):
    settings = Settings(codemods=(by_code("PML206"),), original_positions=not rewrite, rewrite=rewrite, unsafe_fixes=True)
    result = process_source((HEAD + code).encode(), "loops.py", settings)
    assert result.error is None, result.error
    return result


def test_a_one_line_body_that_appends_is_scanned():
    result = _run("@jax.jit\ndef f(xs):\n    ys = []\n    for row in xs: ys.append(row * 2.0)\n    return jnp.stack(ys)\n\n\n"
                  "f(jnp.ones((60, 3)))\n", rewrite=True)
    new = result.new_source.decode()
    assert "ys_item = row * 2.0" in new and "_, ys_stacked = jax.lax.scan(f_body, None, xs)" in new and "ys = []" not in new
    compile(new, "loops.py", "exec")


def test_a_list_stacked_inside_the_loop_is_not_scanned():
    (finding,) = _run("@jax.jit\ndef f(x: jax.Array):\n    ys = []\n    for i in range(100):\n        ys.append(x)\n"
                      "        x = x + jnp.stack(ys)[0] * 0.0\n    return jnp.stack(ys)\n").findings
    assert finding.fix is None and "`ys` is used otherwise" in finding.note


def test_a_starred_list_is_no_stack_of_its_rows():
    (finding,) = _run("@jax.jit\ndef f(x: jax.Array):\n    ys = []\n    for i in range(100):\n        ys.append(x * i)\n"
                      "    return jnp.stack(*ys)\n").findings
    assert finding.fix is None and "`ys` is used otherwise" in finding.note


def test_consecutive_pairs_with_a_comma_in_the_slice():
    (finding,) = _run("@jax.jit\ndef f(ts, y):\n    for t0, t1 in zip(ts, ts[1:,]):\n        y = y + (t1 - t0) * jnp.sin(y)\n"
                      "    return y\n").findings
    assert "one per pair of consecutive rows of `ts`" in finding.message and finding.fix is not None


def test_a_carry_a_complex_literal_may_turn_complex_is_unsafe():
    """`h + 1j * row` is complex when `h` is a float array: a scan's carry cannot change its dtype."""
    (finding,) = _run("@jax.jit\ndef f(xs, h):\n    for row in xs:\n        h = h + 1j * row\n    return h\n\n\n"
                      "f(jnp.ones((60, 3)), jnp.zeros(3))\n").findings
    assert finding.fix is not None and finding.fix.safety.value == "unsafe" and "nothing proves their dtypes equal" in finding.note
