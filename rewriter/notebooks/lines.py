"""Lines as Python and IPython count them: broken at `\\n`, `\\r\\n` and `\\r` only.

`str.splitlines` also breaks at form feeds, `\\x1c`-`\\x1e`, `\\x85`, `\\u2028` and `\\u2029`, which
may stand in a string or comment of a cell; counting them would put masks and positions on the
wrong lines."""
from __future__ import annotations

import io


def python_lines(text: str, keepends: bool = True) -> list[str]:
    lines = io.StringIO(text, newline="").readlines()
    return lines if keepends else [line.rstrip("\r\n") for line in lines]
