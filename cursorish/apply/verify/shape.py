"""The sketch read as chunks: runs of code lines between its "existing code" markers."""

from __future__ import annotations

from dataclasses import dataclass

from cursorish.apply.languages import Language
from cursorish.apply.lines import indent_width as _width
from cursorish.apply.markers import is_marker


@dataclass
class _Chunk:
    lines: list[str]  # the chunk's non-blank sketch lines
    first: int  # sketch line number (0-based) of lines[0]
    # A blank line between the chunk and the marker before (after) it: the original line
    # next to the chunk's place on that side is blank.
    blank_before: bool = False
    blank_after: bool = False
    # How many blank lines the sketch shows between the chunk and the marker after it.
    blanks_after: int = 0


@dataclass
class _Shape:
    chunks: list[_Chunk]
    leading: bool  # a marker (or an implied one) before the first chunk
    trailing: bool
    whole: bool  # a sketch without markers, read as the whole new file


def _shape(lines: list[str], lang: Language, fmt: str) -> _Shape | None:
    if fmt == "plain":
        return _plain_shape(lines)
    chunks: list[_Chunk] = []
    current: list[str] = []
    first = 0
    leading = trailing = False
    after_marker = False  # the last non-blank sketch line was a marker
    blank_before = False
    blank = False  # a blank line since the last non-blank sketch line
    blanks = 0  # how many
    for number, line in enumerate(lines):
        if is_marker(line, lang):
            if current:
                chunks.append(_Chunk(current, first, blank_before, blank, blanks))
                current = []
            elif not chunks:
                leading = True
            trailing = True
            after_marker = True
            blank = False
            blanks = 0
            continue
        if line.strip():
            if not current:
                first = number
                blank_before = after_marker and blank
            current.append(line)
            trailing = False
            after_marker = False
            blank = False
            blanks = 0
        else:
            blank = True
            blanks += 1
    if current:
        chunks.append(_Chunk(current, first, blank_before))
    if not chunks:
        return None
    return _Shape(chunks, leading, trailing, whole=False)


def _plain_shape(lines: list[str]) -> _Shape:
    """A sketch without markers: the whole file, or top-level pieces (a definition after a
    blank line at the snippet's least depth) each standing for its own original."""
    nonblank = [line for line in lines if line.strip()]
    depth = min(_width(line) for line in nonblank)
    chunks: list[_Chunk] = []
    current: list[str] = []
    first = 0
    previous_blank = False
    for number, line in enumerate(lines):
        if not line.strip():
            previous_blank = True
            continue
        starts = previous_blank and _width(line) == depth and not _is_closer(line)
        if current and starts:
            chunks.append(_Chunk(current, first))
            current = []
        if not current:
            first = number
        current.append(line)
        previous_blank = False
    chunks.append(_Chunk(current, first))
    return _Shape(chunks, leading=True, trailing=True, whole=True)


def _is_closer(line: str) -> bool:
    return line.strip().startswith(("}", ")", "]", "end", "else", "elif", "except", "finally"))
