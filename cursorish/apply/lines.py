"""Line-level helpers shared by the merge engines: match keys, indentation, weights, file text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cursorish.apply.textio import newline_of, split_lines

_ALNUM = re.compile(r"[A-Za-z0-9_]")
# A string literal on one line: double-, single- or backtick-quoted (escapes skipped).
STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')

# A comment opener alone (`///`, `//!`, `#`, ` *`): a comment block's blank line, which like a
# blank line tells no place and is the edited version of no other line.
BARE_COMMENT = frozenset(("//", "///", "//!", "#", "*", "--"))
# What a line that closes a bracketed block starts with (`}`, `})`, `],`).
CLOSING_BRACKETS = ("}", ")", "]")


def key(line: str) -> str:
    """What two lines must share to count as "the same line": text with whitespace collapsed."""
    return " ".join(line.split())


def shared_ends(a: Sequence[object], b: Sequence[object]) -> tuple[int, int]:
    """How many items `a` and `b` share at their start, and then at their end (the end never
    reaching into the shared start): the changed middle is `a[head : len(a) - tail]`."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return head, tail


def indent_width(line: str, tab: int = 4) -> int:
    """Width of the leading whitespace, a tab counting `tab` columns."""
    lead = len(line) - len(line.lstrip(" \t"))
    if not lead:
        return 0
    tabs = line.count("\t", 0, lead)
    return lead + tabs * (tab - 1)


def leading(line: str) -> str:
    """The leading whitespace of `line`."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def weight(k: str) -> float:
    """How much evidence a matched line with key `k` is: punctuation and short lines count less."""
    if not k:
        return 0.0
    alnum = len(_ALNUM.findall(k))
    if alnum == 0:
        return 0.2
    if alnum < 4:
        return 0.5
    return 1.0


@dataclass
class SourceFile:
    """The original file as lines, with what is needed to write merged lines back the same way."""

    lines: list[str]
    endings: list[str]
    newline: str
    final_newline: bool

    @classmethod
    def from_text(cls, text: str) -> SourceFile:
        lines, endings = split_lines(text)
        final = bool(endings) and endings[-1] != ""
        return cls(lines, endings, newline_of(text), final)

    def render(self, pieces: list[tuple[str, str | None]]) -> str:
        """Join (line, ending-or-None) pairs; None means the file's own newline."""
        if not pieces:
            return ""
        newline = self.newline
        out = [line + (ending or newline) for line, ending in pieces]
        if not self.final_newline and self.lines:
            out[-1] = pieces[-1][0]
        return "".join(out)

    def original_piece(self, j: int) -> tuple[str, str | None]:
        return self.lines[j], self.endings[j] or None

    def original_pieces(self, low: int, high: int) -> list[tuple[str, str | None]]:
        """`original_piece(j)` for j in range(low, high), built in one go (a merge copies most
        of the file this way)."""
        if low < 0 or high > len(self.lines):  # the slow way, errors included
            return [self.original_piece(j) for j in range(low, high)]
        endings = [e or None for e in self.endings[low:high]]
        return list(zip(self.lines[low:high], endings, strict=True))


def indent_style(lines: list[str]) -> tuple[bool, int]:
    """(uses tabs, indent unit in spaces) for a list of lines."""
    tabs, spaces, widths = _indent_counts(lines)
    unit = 4
    if widths:
        smallest = min(widths)
        if smallest in (2, 4, 8):
            unit = smallest
        elif smallest == 3:
            unit = 3
    return tabs > spaces, unit


def mixed_indent(lines: list[str]) -> bool:
    """Whether the file indents real numbers of lines both with tabs and with spaces, as a Go
    file whose raw string holds a space-indented script does: its majority style says nothing
    about a given line, so a sketch line keeps the style it was written in."""
    tabs, spaces, _widths = _indent_counts(lines)
    return min(tabs, spaces) >= 10 and min(tabs, spaces) * 10 >= max(tabs, spaces)


def _indent_counts(lines: list[str]) -> tuple[int, int, dict[int, int]]:
    """How many lines start with a tab, how many non-blank ones with a space, and how many of
    the latter indent to each width."""
    tabs = spaces = 0
    widths: dict[int, int] = {}
    for line in lines:
        first = line[:1]
        if first == "\t":
            tabs += 1
        elif first == " ":
            rest = line.lstrip(" ")
            if not rest or rest.isspace():
                continue
            spaces += 1
            width = len(line) - len(rest)
            if rest.startswith("\t"):
                width = indent_width(line)
            widths[width] = widths.get(width, 0) + 1
    return tabs, spaces, widths


def convert_indent(line: str, *, to_tabs: bool, unit: int) -> str:
    """Re-express `line`'s leading whitespace in tabs (or spaces of `unit`)."""
    lead = leading(line)
    if not lead:
        return line
    width = indent_width(lead, unit)
    if to_tabs:
        return "\t" * (width // unit) + " " * (width % unit) + line[len(lead) :]
    return " " * width + line[len(lead) :]


def reindent(line: str, delta: int, *, tabs: bool, unit: int) -> str:
    """Shift `line` right by `delta` columns (left when negative), in the file's style."""
    if not line.strip() or delta == 0:
        return line
    lead = leading(line)
    if " \t" in lead:
        # A space before a tab: no style's indentation. Shift it at its start, the rest kept.
        step = "\t" * (abs(delta) // unit) if tabs and not abs(delta) % unit else " " * abs(delta)
        if delta > 0:
            return step + line
        if lead.startswith(step):
            return line[len(step) :]
    width = max(0, indent_width(lead, unit) + delta)
    if tabs:
        return "\t" * (width // unit) + " " * (width % unit) + line[len(lead) :]
    return " " * width + line[len(lead) :]
