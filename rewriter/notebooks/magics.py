"""IPython syntax in a cell: masked so the cell parses as Python, and restored byte for byte.

Line magics (`%time f(x)`), shell escapes (`!pip install x`), their assignment forms
(`files = !ls`, `t = %timeit -o f()`) and help lines (`np.sum?`, `??f`) become one `pass` statement
each, at the same indentation, carrying a numbered comment; a magic continued over several lines
(`\\` at the end) keeps its line count with numbered comment lines. Positions in a masked cell are
therefore positions in the cell as written. After a rewrite every placeholder must still be there,
exactly once and at its indentation, or the cell is not restored (and not written).

A cell that starts with a cell magic runs its body through that magic: only the magics whose body
is Python run by IPython itself (`%%time`, `%%capture`, ...) are analysed, with the magic's line
masked; any other (`%%bash`, `%%writefile`, `%%html`) makes the cell opaque: left as it is.
"""
from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass, field

from ..boundaries import python_lines

# Cell magics whose body IPython runs as Python code in the user namespace.
# (`%%python` and `%%script` run in a subprocess, not in the notebook: opaque like `%%bash`.)
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
# ... of which those that run it inside a function: what it binds does not reach the namespace.
SCOPED_CELL_MAGICS = frozenset({"timeit"})

_TAG = "# phiml-rewrite: IPython"


@dataclass
class Masked:
    """A cell's code with its IPython syntax replaced; `originals` maps placeholder lines back."""

    text: str
    originals: list[tuple[list[str], list[str]]] = field(default_factory=list)  # (placeholder lines, original lines)
    cell_magic: bool = False  # the first placeholder is a cell magic's line, which must stay the cell's first
    magic: str = ""  # that cell magic's name (`timeit`)

    @property
    def has_magics(self) -> bool:
        return bool(self.originals)

    @property
    def top_level_lines(self) -> bool:
        """Every placeholder is one line at the cell's top level: a `pass` statement of the module, which
        no fix edits, moves or splits (a fix replaces the nodes it names and inserts whole statements), so
        any rewrite keeps it as it was."""
        return all(len(placeholder) == 1 and not placeholder[0][:1].isspace() for placeholder, _ in self.originals)

    @property
    def scoped(self) -> bool:
        """The cell's body runs inside a function of its cell magic's (`SCOPED_CELL_MAGICS`): an import
        there binds nothing the notebook's other cells see."""
        return self.magic in SCOPED_CELL_MAGICS


def mask(text: str) -> Masked | None:
    """The cell with IPython syntax masked; None for a cell magic whose body is not Python."""
    lines = python_lines(text)
    if mentions_tag(lines):
        return None  # our own placeholder text written by hand: it could not be restored unambiguously
    spans = []  # (first line index, last line index) of each magic, 0-based
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    cell_magic = first is not None and lines[first].lstrip().startswith("%%")
    magic = ""
    if cell_magic:
        name = lines[first].lstrip()[2:].split(None, 1)
        if not name or name[0] not in PYTHON_CELL_MAGICS:
            return None
        magic = name[0]
        spans.append((first, first))
    spans += [s for s in _magic_lines(lines) if not spans or s[0] > spans[0][1]]
    if not spans:
        return Masked(text)
    out = list(lines)
    masked = Masked("", cell_magic=cell_magic, magic=magic)
    for number, (start, end) in enumerate(spans, 1):
        indent = _indent(lines[start])
        placeholder = [f"{indent}pass  {_TAG} {number}"] + [f"{indent}{_TAG} {number}+" for _ in range(start + 1, end + 1)]
        for offset, i in enumerate(range(start, end + 1)):
            ending = _ending(lines[i])
            out[i] = placeholder[offset] + ending
        masked.originals.append((placeholder, [line.rstrip("\r\n") for line in lines[start:end + 1]]))
    masked.text = "".join(out)
    return masked


def unmask(text: str, masked: Masked) -> str | None:
    """`text` (the masked cell, perhaps rewritten) with the original IPython lines put back; None
    when a placeholder is missing, repeated, split up or moved to another indentation."""
    if not masked.has_magics:
        return text
    lines = _cell_magic_first(python_lines(text), masked)
    if lines is None:
        return None
    stripped = [line.rstrip("\r\n") for line in lines]
    for placeholder, original in masked.originals:
        found = [i for i, line in enumerate(stripped) if line == placeholder[0]]
        if len(found) != 1:
            return None
        start = found[0]
        if stripped[start:start + len(placeholder)] != placeholder:
            return None
        for offset, line in enumerate(original):
            lines[start + offset] = line + _ending(lines[start + offset])
            stripped[start + offset] = None  # restored: never matched again
    if mentions_tag(lines):
        return None  # a placeholder copied elsewhere by a rewrite
    return "".join(lines)


def _cell_magic_first(lines: list[str], masked: Masked) -> list[str] | None:
    """`lines` with what a rewrite put above a cell magic's line (an import added at the top of
    the notebook) moved just below it: IPython reads `%%capture` as a cell magic only on the cell's
    first line, and runs the cell's body in the notebook's namespace, where the import belongs."""
    if not masked.cell_magic:
        return lines
    placeholder = masked.originals[0][0][0]
    found = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == placeholder]
    if len(found) != 1:
        return None
    at = found[0]
    above = lines[:at]
    if not any(line.strip() for line in above):
        return lines
    magic = lines[at]
    if not _ending(magic):
        magic += _ending(above[-1]) or "\n"
    while above and not above[-1].strip():
        above.pop()  # the blank lines between the added code and the magic: kept at the end, not the start
    rest = lines[at + 1:]
    if rest and rest[0].strip():
        above.append(_ending(magic))  # as an added import is set apart from the code below it
    if not rest:
        above[-1] = above[-1].rstrip("\r\n")  # the cell ended with the magic's line
    elif not _ending(above[-1]):
        above[-1] += _ending(magic)
    return [magic, *above, *rest]


def mentions_tag(lines: list[str] | str) -> bool:
    """Whether the cell holds our placeholder's text (written by hand, or copied by a rewrite)."""
    return _TAG in (lines if isinstance(lines, str) else "".join(lines))


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):]


def _magic_lines(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) line indices of each logical line that is IPython syntax rather than Python."""
    out = []
    statement: list[tokenize.TokenInfo] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO("".join(lines)).readline):
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER) or (token.type == tokenize.NL and not statement):
                if statement and _is_magic(statement):
                    out.append((statement[0].start[0] - 1, token.start[0] - 1 if token.type == tokenize.NEWLINE else statement[-1].end[0] - 1))
                statement = []
            elif token.type in (tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.NL):
                continue
            elif token.type == tokenize.ERRORTOKEN and token.string.isspace():
                continue
            else:
                statement.append(token)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # what was found so far stands; the cell's parse check reports the rest
    return out


def _is_magic(tokens: list[tokenize.TokenInfo]) -> bool:
    first = tokens[0]
    if first.string in ("%", "!", "?") and first.type in (tokenize.OP, tokenize.ERRORTOKEN):
        return True  # %magic, %%magic, !shell, ?help
    if tokens[-1].type == tokenize.ERRORTOKEN and tokens[-1].string == "?":
        return True  # object? / object??
    # `name = !ls`, `a, b = %magic`, `d["k"] = !ls`, `x: list = !ls`: an assignment whose value
    # starts with IPython syntax (its first `=` outside brackets)
    depth = 0
    for i, token in enumerate(tokens[:-1]):
        if token.type == tokenize.OP and token.string in ("(", "[", "{"):
            depth += 1
        elif token.type == tokenize.OP and token.string in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and token.type == tokenize.OP and token.string == "=":
            after = tokens[i + 1]
            return i > 0 and after.string in ("%", "!") and after.type in (tokenize.OP, tokenize.ERRORTOKEN)
    return False
