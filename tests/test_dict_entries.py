"""A dict read under jit: a settings dict's entries by key (ast_flow `_display`, `_subscript`; trace_values
`Value.entries`), and its keys, Python values (`bind_element`)."""
from __future__ import annotations

from rewriter.engine import process_source
from rewriter.registry import by_code
from rewriter.settings import Settings

HEAD = "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x):\n"


def _findings(body: str) -> list[str]:
    settings = Settings(codemods=(by_code("PML201"), by_code("PML202")), original_positions=True, rewrite=False)
    result = process_source((HEAD + body).encode(), "d.py", settings)
    assert result.error is None, result.error
    return [f"{f.code}:{f.span.line - 6} {'cannot tell' if 'cannot tell' in f.message else 'traced'}" for f in result.findings]


def test_an_entry_is_read_by_its_key():
    assert _findings("    d = {'n': 3, 'x': x}\n    for _ in range(d['n']):\n        x = x * 2\n"
                     "    if d['x'].sum() > 0:\n        x = -x\n    return x\n") == ["PML201:4 traced"]


def test_a_key_written_twice_reads_the_last():
    assert _findings("    d = {'n': x, 'n': 3}\n    if d['n'] > 1:\n        x = -x\n    return x\n") == []
    assert _findings("    d = {'n': 3, 'n': x}\n    if d['n'] > 1:\n        x = -x\n    return x\n") == ["PML201:2 traced"]


def test_a_written_entry_or_a_mutating_call_forgets_the_entries():
    assert _findings("    d = {'n': 3, 'x': x}\n    d['n'] = x\n    if d['n'] > 1:\n        x = -x\n    return x\n") \
        == ["PML201:3 traced"]
    assert _findings("    d = {'n': 3, 'x': x}\n    d.update(n=x)\n    if d['n'] > 1:\n        x = -x\n    return x\n") \
        == ["PML201:3 traced"]


def test_a_dict_rebound_in_a_branch_or_a_loop_is_their_join():
    assert _findings("    d = {'n': 3, 'x': x}\n    if x.shape[0] > 2:\n        d = {'n': x, 'x': x}\n"
                     "    if d['n'] > 1:\n        x = -x\n    return x\n") == ["PML201:4 traced"]
    assert _findings("    d = {'n': 3, 'x': x}\n    for i in range(3):\n        d['n'] = x\n"
                     "    if d['n'] > 1:\n        x = -x\n    return x\n") == ["PML201:4 traced"]


def test_a_merge_of_python_values_and_traced_ones_is_cannot_tell():
    assert _findings("    d = {**{'n': 3}, 'x': x}\n    if d['n'] > 1:\n        x = -x\n    return x\n") \
        == ["PML201:2 cannot tell"]


def test_a_dicts_keys_are_python_values():
    """A tracer is unhashable: no key of a dict is one, whatever its values are (brax's `k.startswith(...)`)."""
    assert _findings("    out = {}\n    for k, v in x.items():\n        if k.startswith('a'):\n            out[k] = v\n"
                     "    for k in x.keys():\n        if k == 'b':\n            out[k] = x[k]\n"
                     "    for k, v in x.items():\n        if v.sum() > 0:\n            out[k] = v\n    return out\n") \
        == ["PML201:9 traced"]
