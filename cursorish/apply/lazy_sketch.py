"""A lazy sketch's parts and splitting it: the chunks between its "existing code" markers,
the split sketch, a merge's result and the refusal; and the thresholds that the merge's steps
share (what makes a line wordy, telling or like another).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from cursorish.apply.languages import Language
from cursorish.apply.lines import indent_width, key
from cursorish.apply.markers import is_marker

WORDY = 0.5  # weight of a line with some words in it (not punctuation only)
_EDGE_REACH = 3
_TELLING_LENGTH = 12  # a shorter line (`return x`, `else {`) may well repeat

_LIKE = 0.5
FRESH = "\x00"  # a key no line of the original has: the line is new wherever it goes

_WORD = re.compile(r"[A-Za-z_]\w{3,}")
# Words any line may share with any other: no sign that one line is an edit of the other.
_COMMON_WORDS = frozenset(
    {
        "return",
        "self",
        "this",
        "else",
        "func",
        "function",
        "const",
        "true",
        "false",
        "null",
        "None",
        "True",
        "False",
        "await",
        "async",
        "from",
        "import",
        "elif",
        "while",
        "string",
    }
)


class RefusedMerge(Exception):
    """The sketch cannot be placed safely; the message says why."""


@dataclass
class Chunk:
    """A run of sketch lines between markers."""

    lines: list[str]
    first: int  # 0-based sketch line number of lines[0]
    marker_indent: int | None  # indentation of the marker before it (None: none)
    floor: int = 0  # the original lines that marker stands for are indented at least this much
    # Markers in a row, each shallower (`    # ... rest of it ...` then `# ... more ...`): the
    # first says where the block before ends, the shallowest how far out the lines reach.
    marker_least: int | None = None
    # Lines of a new definition the chunk writes whole: they anchor nowhere (see lazy_fresh).
    fresh: frozenset[int] = frozenset()

    @property
    def keys(self) -> list[str]:
        if self.fresh:
            return [FRESH + key(x) if k in self.fresh else key(x) for k, x in enumerate(self.lines)]
        return [key(line) for line in self.lines]

    @property
    def anchors(self) -> list[str]:
        """The lines as placement compares them: a fresh line keeps only its indentation."""
        if not self.fresh:
            return self.lines
        return [
            x[: len(x) - len(x.lstrip(" \t"))] + FRESH if k in self.fresh else x
            for k, x in enumerate(self.lines)
        ]

    def where(self) -> str:
        return f"sketch lines {self.first + 1}-{self.first + len(self.lines)}"


@dataclass
class LazySketch:
    chunks: list[Chunk]
    leading_marker: bool
    trailing_marker: bool
    trailing_indent: int
    # The sketch writes a marker at both its edges (not implied ones) and some blank line.
    marked: bool = False


@dataclass
class Merge:
    """The merged lines and which original lines the merge deleted."""

    pieces: list[tuple[str, str | None]]
    deleted: list[int]
    added: list[str] = dataclasses.field(default_factory=list)  # sketch lines matched to none
    # Why this reading, if it is the one chosen, must still be refused (as a rival it stands).
    doubt: str = ""
    # Original lines a sketch line matched but rewrites in place (an edited line), with it.
    rewritten: list[tuple[int, str]] = dataclasses.field(default_factory=list)

    @property
    def removed(self) -> set[int]:
        """The original lines the merge does not keep as they were: deleted or rewritten."""
        return set(self.deleted) | {j for j, _text in self.rewritten}


def split_sketch(lines: list[str], lang: Language) -> LazySketch:
    """Chunks and markers of a sketch; runs of blank lines alone between markers are dropped."""
    chunks: list[Chunk] = []
    current: list[str] = []
    start = 0
    marker_indent: int | None = None
    least: int | None = None
    in_run = False
    leading_marker = False
    trailing_marker = False
    trailing_indent = 0
    seen_content = False
    for number, line in enumerate(lines):
        if is_marker(line, lang):
            if any(x.strip() for x in current):
                chunks.append(Chunk(current, start, marker_indent, marker_least=least))
                in_run = False
            elif not seen_content:
                leading_marker = True
            seen_content = True
            current = []
            width = indent_width(line)
            if in_run and least is not None:
                least = min(least, width)
            else:
                marker_indent = least = width
                trailing_indent = width
            in_run = True
            trailing_marker = True
            continue
        if not current:
            start = number
        current.append(line)
        if line.strip():
            seen_content = True
            trailing_marker = False
            in_run = False
    if any(x.strip() for x in current):
        chunks.append(Chunk(current, start, marker_indent, marker_least=least))
    elif chunks and current:
        pass
    if chunks and chunks[0].marker_indent is None:
        leading_marker = False
    for before, chunk in itertools.pairwise(chunks):
        # Planners indent a marker like the line before it, after it, or the code it hides.
        last = next(x for x in reversed(before.lines) if x.strip())
        first = next(x for x in chunk.lines if x.strip())
        marker = chunk.marker_indent or 0
        if marker > indent_width(last):
            # Indented past the line before it: the marker is inside the block that line opens.
            chunk.floor = min(marker, indent_width(first))
        else:
            chunk.floor = min(marker, indent_width(last), indent_width(first))
        if chunk.marker_least is not None:
            chunk.floor = min(chunk.floor, chunk.marker_least)
    # A sketch without one blank line among its code has dropped them all: it says nothing
    # of the blank lines of the stretches it rewrites.
    spaced = any(not line.strip() for chunk in chunks for line in chunk.lines)
    marked = leading_marker and trailing_marker and spaced
    return LazySketch(chunks, leading_marker, trailing_marker, trailing_indent, marked)


# Raises `RefusedMerge` for a merge that must not stand (it loses an unmentioned definition).
Validate = Callable[[Merge], None]
