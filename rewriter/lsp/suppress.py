"""The edit that adds `# phiml-rewrite: ignore[CODE]` for one finding.

A suppression counts on a finding's first or last line (rewriter.suppressions). The comment goes on
the first of those lines whose end is code, not the inside of a string or a backslash continuation;
a line that already suppresses other codes gets this one added to its list.
"""
from __future__ import annotations

import io
import tokenize

from ..findings import Finding
from ..suppressions import _DIRECTIVE
from .textedits import TextEdit


def suppression_edit(text: str, finding: Finding) -> TextEdit | None:
    """None when neither line can carry a comment (both end inside a string)."""
    lines = io.StringIO(text, newline="").readlines()
    comments, unsafe_ends = _comments_and_string_lines(text)
    for line in dict.fromkeys((finding.span.line, finding.span.end_line)):
        if line in unsafe_ends or line > len(lines):
            continue
        start = sum(len(s) for s in lines[: line - 1])
        body = lines[line - 1].rstrip("\r\n")
        existing = comments.get(line)
        if existing is not None:
            column, comment = existing
            match = _DIRECTIVE.search(comment)
            if match and match.group("codes") is not None:  # ignore[A, B] -> ignore[A, B, CODE]
                close = column + match.end() - 1
                return TextEdit(start + close, start + close, f", {finding.code}")
            if match:  # a bare `ignore` already suppresses everything (the finding would not exist)
                continue
        if body.endswith("\\"):
            continue
        spacing = "" if not body else "  "
        return TextEdit(start + len(body), start + len(body), f"{spacing}# phiml-rewrite: ignore[{finding.code}]")
    return None


def _comments_and_string_lines(text: str) -> tuple[dict[int, tuple[int, str]], set[int]]:
    """Comments by line (column, text), and the lines whose end lies inside a multi-line token."""
    comments: dict[int, tuple[int, str]] = {}
    inside: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = (tok.start[1], tok.string)
            elif tok.end[0] > tok.start[0] and tok.type != tokenize.NL and tok.type != tokenize.NEWLINE:
                inside.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError):
        pass
    return comments, inside
