"""`# phiml-rewrite: ignore` and `# phiml-rewrite: ignore[PML301, jit-in-loop]` comments.

Comments are found with `tokenize` (never by scanning the text), so a `#` inside a string is not a
comment. A suppression applies to a finding whose first or last line carries it.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

from .findings import Span

_DIRECTIVE = re.compile(r"#\s*phiml-rewrite\s*:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
ALL = "*"


@dataclass
class Suppressions:
    """The rules a file's `# phiml-rewrite: ignore[...]` comments silence, by line."""
    by_line: dict[int, set[str]] = field(default_factory=dict)

    @classmethod
    def from_source(cls, source: str) -> "Suppressions":
        by_line: dict[int, set[str]] = {}
        if "phiml-rewrite" not in source:  # the common case costs one substring search
            return cls(by_line)
        try:
            for tok in tokenize.generate_tokens(io.StringIO(source).readline):
                if tok.type != tokenize.COMMENT:
                    continue
                match = _DIRECTIVE.search(tok.string)
                if not match:
                    continue
                codes = match.group("codes")
                wanted = {c.strip().upper() for c in codes.split(",") if c.strip()} if codes else {ALL}
                by_line.setdefault(tok.start[0], set()).update(wanted)
        except (tokenize.TokenError, SyntaxError):
            pass  # the parser reports the real error
        return cls(by_line)

    def is_suppressed(self, span: Span, code: str, name: str) -> bool:
        for line in {span.line, span.end_line}:
            wanted = self.by_line.get(line)
            if wanted and (ALL in wanted or code.upper() in wanted or name.upper() in wanted):
                return True
        return False
