"""Replace the `source` of some cells in a notebook's JSON text, and nothing else.

Re-serialising the whole notebook would re-indent, re-order keys, re-escape outputs written by
another tool, or drop the final newline. Instead the text is scanned (json's own scanner, value by
value) for the byte ranges of the cells' `source` values, and only those are replaced, written in
the style of the value they replace: a string stays a string; a list of lines keeps its indentation.
"""
from __future__ import annotations

import json

_decoder = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


class JsonEditError(Exception):
    pass


def source_spans(text: str) -> dict[int, tuple[int, int]]:
    """Position in `cells` -> (start, end) of that cell's `source` value in `text`."""
    i = _ws(text, 0)
    spans: dict[int, tuple[int, int]] = {}
    for key, start in _members(text, i):
        if key == "cells":
            j = _expect(text, start, "[")
            position = 0
            while True:
                j = _ws(text, j)
                if text[j] == "]":
                    break
                if position:
                    j = _ws(text, _expect(text, j, ","))
                if text[j] == "{":
                    for cell_key, value in _members(text, j):
                        if cell_key == "source":
                            spans[position] = (value, _value_end(text, value))
                j = _value_end(text, j)
                position += 1
    return spans


def replace_sources(text: str, new: dict[int, str], spans: dict[int, tuple[int, int]] | None = None) -> str:
    """`text` with the `source` of the cells at these positions replaced by new code."""
    spans = source_spans(text) if spans is None else spans
    ascii_only = text.isascii() and "\\u" in text  # written with ensure_ascii (nbformat itself does not)
    out, last = [], 0
    for position in sorted(new):
        start, end = spans[position]
        out.append(text[last:start])
        out.append(_styled(text, start, end, new[position], ascii_only))
        last = end
    out.append(text[last:])
    return "".join(out)


def _styled(text: str, start: int, end: int, code: str, ascii_only: bool) -> str:
    old = text[start:end]
    dump = lambda s: json.dumps(s, ensure_ascii=ascii_only)  # noqa: E731
    if old.startswith('"'):
        return dump(code)
    lines = code.splitlines(keepends=True)
    if not lines:
        return "[]"
    inner = old[1:-1]
    if inner.strip():
        item_gap = inner[: len(inner) - len(inner.lstrip(_WHITESPACE))]
        closing_gap = inner[len(inner.rstrip(_WHITESPACE)):]
        separator = "," + item_gap if "\n" in item_gap else ", "
    else:  # an empty list: one level deeper than the line holding it, in the file's indent unit
        line_start = text.rfind("\n", 0, start) + 1
        key_indent = text[line_start: line_start + len(text[line_start:]) - len(text[line_start:].lstrip(" \t"))]
        unit = _indent_unit(text)
        if unit is None:
            return "[" + ", ".join(dump(line) for line in lines) + "]"
        item_gap, closing_gap = "\n" + key_indent + unit, "\n" + key_indent
        separator = "," + item_gap
    return "[" + item_gap + separator.join(dump(line) for line in lines) + closing_gap + "]"


def _indent_unit(text: str) -> str | None:
    """The indentation of the top-level keys (one space for Jupyter); None for a one-line file."""
    newline = text.find("\n")
    if newline < 0:
        return None
    rest = text[newline + 1:]
    unit = rest[: len(rest) - len(rest.lstrip(" \t"))]
    return unit or None


def _ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WHITESPACE:
        i += 1
    if i >= len(text):
        raise JsonEditError("unexpected end of the JSON text")
    return i


def _expect(text: str, i: int, char: str) -> int:
    i = _ws(text, i)
    if text[i] != char:
        raise JsonEditError(f"expected {char!r} at offset {i}")
    return i + 1


def _value_end(text: str, i: int) -> int:
    try:
        return _decoder.raw_decode(text, i)[1]
    except json.JSONDecodeError as e:
        raise JsonEditError(str(e)) from None


def _members(text: str, i: int):
    """(key, start of its value) for each member of the object starting at `i`."""
    i = _expect(text, i, "{")
    first = True
    while True:
        i = _ws(text, i)
        if text[i] == "}":
            return
        if not first:
            i = _ws(text, _expect(text, i, ","))
        first = False
        key, i = json.decoder.scanstring(text, _expect(text, i, '"'))
        i = _ws(text, _expect(text, i, ":"))
        yield key, i
        i = _value_end(text, i)
