"""PML201 decides on `ast` and its builder writes on libcst from those decisions (codemods/traced_if.py):
what the plan promises (safety against the project's releases, the imports, a temporary) is what the
written code does, in the cases where the two trees' readings of the file part."""
from __future__ import annotations

import ast

from click.testing import CliRunner

from rewriter.cli import main
from rewriter.engine import process_source
from rewriter.registry import by_code
from rewriter.settings import Settings

SELECTION = """\
import jax
import jax.numpy as jnp


@jax.jit
def f(x):
    if x.sum() > 0:
        y = x
    else:
        y = x * 2
    return y
"""


def _fixed(source: str, unsafe: bool = False) -> str:
    result = process_source(source.encode(), "f.py", Settings(codemods=(by_code("PML201"),), rewrite=True,
                                                              unsafe_fixes=unsafe))
    assert result.error is None, result.error
    return (result.new_source or source.encode()).decode()


def test_a_pinned_release_older_than_the_fix_makes_it_unsafe(tmp_path):
    """`jnp.where` is spelled through the file's own import: the release check reads it all the same."""
    (tmp_path / "requirements.txt").write_text("jax==0.2.20\n")
    (tmp_path / "f.py").write_text(SELECTION)
    out = CliRunner().invoke(main, ["--check", "--no-cache", "--no-progress", str(tmp_path / "f.py")]).output
    assert "requirements.txt:1 pins jax==0.2.20" in out and "[*]" not in out, out


def test_a_file_only_a_newer_python_reads_spells_what_it_imports():
    """A type parameter named `jnp` (PEP 695, lowered away on 3.11) still takes the name: the import the fix
    adds and the code it writes agree."""
    source = SELECTION.replace("import jax\nimport jax.numpy as jnp\n", "from jax import jit\n\n\n"
                               "def first[jnp](items: list) -> object:\n    return items[0]\n").replace("@jax.jit", "@jit")
    fixed = _fixed(source)
    assert "import jax.numpy as jnp_2" in fixed and "jnp_2.where(" in fixed, fixed


def test_a_guard_is_never_computed_before_what_it_reads():
    """The condition's temporary would go before the line, ahead of the statement that binds `a`: the
    guard is left out instead (the fix stays unsafe: `where` evaluates the division)."""
    source = ("from phiml import math\n\n\n@math.jit_compile\ndef g(x, norm):\n"
              "    a = norm * 2; y = x / a if (a != 0).all else x\n    return y\n")
    fixed = _fixed(source, unsafe=True)
    assert "condition" not in fixed and "math.where(math.all(a != 0, dim=math.shape), x / a, x)" in fixed, fixed
    ast.parse(fixed)
