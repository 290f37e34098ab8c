"""A loop rewritten into a jax loop function keeps its comments (rewriter/emit/loops.keep_comments)."""
from __future__ import annotations

from pathlib import Path

from rewriter.engine import process_source
from rewriter.registry import by_code
from rewriter.settings import Settings

SOURCE = '''import jax
import jax.numpy as jnp


@jax.jit
def relax(x):
    for _ in range(100):  # a hundred sweeps
        x = 0.5 * (x + jnp.roll(x, 1))
        # the last line of the body
    return x


@jax.jit
def power(x, n):
    for _ in range(n):  # n doublings
        x = x * 2
        # done
    return x


@jax.jit
def halve(x, n):
    while n > 0:  # until n is spent
        x = x / 2
        n = n - 1
        # one less
    return x


@jax.jit
def one_line(x):
    for _ in range(100): x = x * 0.5  # halve
    return x
'''


def test_the_loop_line_and_last_comments_stay_in_the_body_def():
    settings = Settings(codemods=tuple(by_code(c) for c in ("PML202", "PML203", "PML206")), unsafe_fixes=True)
    result = process_source(SOURCE.encode(), Path("loops.py").name, settings)
    assert result.error is None and result.new_source is not None
    new = result.new_source.decode()
    compile(new, "loops.py", "exec")
    for comment in ("# a hundred sweeps", "# the last line of the body", "# n doublings", "# done",
                    "# until n is spent", "# one less", "# halve"):
        assert new.count(comment) == 1, comment
    assert "_body(x, _):  # a hundred sweeps\n        x = 0.5" in new
    assert "        # one less\n        return x, n\n" in new
    assert process_source(result.new_source, "loops.py", settings).new_source is None  # a second run changes nothing
