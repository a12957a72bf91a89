"""The doubt of a merge from a sketch that dropped every blank line (`blankless`): the reason
to refuse it where the new lines take, or go in next to, original blank lines, or where the merge
deletes blank lines the sketch could not say go."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cursorish.apply.blankless import (
    JOINED,
    NOT_CODE,
    blankless_code,
    differing,
    joined_places,
    opcodes,
    shows_no_blank,
)
from cursorish.apply.languages import Language
from cursorish.apply.lines import CLOSING_BRACKETS, indent_width
from cursorish.apply.markers import is_marker


def blankless_doubt(original: str, merged: str, lines: list[str], lang: Language) -> str | None:
    """The reason to refuse `merged`, or None (see the module docstring)."""
    code = blankless_code(lines, lang)
    if code is None:
        return None  # the usual sketch, with blank lines: nothing split, nothing compared
    before = original.split("\n")
    # A marked sketch none of whose lines the original spaces apart (see `_spaced_anew`).
    markers = [is_marker(line, lang) for line in lines]
    joined = joined_places(code, before)
    spaced = None
    if any(markers) and not joined:
        spaced = _spaced_anew(lines, markers, before, merged.split("\n"))
    if spaced:
        return (
            f"the sketch has no blank line at all and writes {spaced!r} right after the line "
            "before it, and the merge keeps an original blank line between them: a sketch "
            "without blank lines cannot say whether it stays"
        )
    # One joined place is enough where the sketch has no blank line at all, not even one
    # before a marker (a sketch that shows its spacing would show the blank line it keeps);
    # none where it also has a marker: a sketch that elides code and still writes all its
    # lines in one block shows nothing of the spacing, whether or not two of them show it.
    if joined < _joins_needed(lines, any(markers)):
        return None
    after = merged.split("\n")
    # Only the stretch between the common head and tail differs: compare that alone.
    head, _tail, old, new = differing(before, after)
    for tag, i1, i2, j1, j2 in opcodes(old, new):
        at = head + i1
        if tag == "delete" and not any(line.strip() for line in old[i1:i2]):
            return (
                f"the sketch has no blank line at all, and the merge deletes blank original "
                f"line(s) {at + 1}-{head + i2} between lines it keeps: a sketch without blank "
                "lines cannot say that they go"
            )
        if tag == "equal" or not any(line.strip() for line in new[j1:j2]):
            continue
        if any(not line.strip() for line in old[i1:i2]) and not _whole_body(
            after, head + j1, head + j2
        ):
            return (
                f"the sketch has no blank line at all, and its new lines (merged line "
                f"{head + j1 + 1}) take the place of original lines {at + 1}-{head + i2} with "
                "blank lines among them: unclear where the blank lines go now"
            )
        end = head + i2  # the original line after the stretch the new lines take
        if (
            tag == "replace"
            and j2 - j1 > i2 - i1
            and end < len(before)
            and not before[end].strip()
            and any(line[:1].isalpha() for line in new[j1 + 1 : j2])
        ):
            return (
                f"the sketch has no blank line at all, and its new lines (merged line "
                f"{head + j1 + 1}) start a new top-level statement right before blank original "
                f"line {end + 1}: unclear whether a blank line sets it apart"
            )
        if tag == "insert" and any(
            (p > 0 and not before[p - 1].strip()) or (p < len(before) and not before[p].strip())
            for p in _insert_spots(before, new[j1:j2], at)
        ):
            return (
                f"the sketch has no blank line at all, and its new lines (merged line "
                f"{head + j1 + 1}) go in next to blank original line(s) around line {at + 1}: "
                "unclear on which side of them, and with what spacing"
            )
        # An inserted block that ends with the line before it (or begins with the line after
        # it) reads the same shifted past that line, the diff picking one: both are read.
        start, stop = head + j1, head + j2
        if tag == "insert" and start > 0 and after[start - 1] == after[stop - 1]:
            start -= 1
        if tag == "insert" and stop < len(after) and after[stop] == after[head + j1]:
            stop += 1
        together = _run_together(after[start:stop]) if joined else iter(())
        run = next((k for k in together if _spaced_block(after, start + k)), None)
        if run is not None:
            return (
                f"the sketch has no blank line at all, and its new lines (merged line "
                f"{start + run + 1}) start a statement right after a block ends or begin a "
                "block right after a statement, in a block the original spaces with blank "
                "lines: unclear whether a blank line sets them apart"
            )
    return None


def _spaced_anew(
    lines: list[str], markers: list[bool], before: list[str], after: list[str]
) -> str | None:
    """A line the sketch writes right after another (no marker between) that the merge sets
    apart from it with the blank line that, in the original, ended the lines between them,
    which it deletes: whether that blank line goes with the lines it ended a sketch without
    any blank line cannot say. `markers[k]`: whether sketch line k is a marker."""
    pairs = {
        (lines[k].strip(), lines[k + 1].strip())
        for k in range(len(lines) - 1)
        if lines[k].strip() and lines[k + 1].strip() and not markers[k] and not markers[k + 1]
    }
    spaced = _pairs_past_blanks(after, pairs)
    if not spaced:
        return None
    # (a line, the line past the blank line that ends the lines after it), the line no deeper;
    # only for the second lines of `spaced`, so the walk stays a pass over the file
    seconds = {b for _, b in spaced}
    ended: set[tuple[str, str]] = set()
    paragraph: list[str] = []
    for k, line in enumerate(before):
        if line.strip():
            paragraph.append(line)
            continue
        if paragraph and k + 1 < len(before) and (after_blank := before[k + 1]).strip() in seconds:
            depth = indent_width(after_blank)
            ended.update(
                (first.strip(), after_blank.strip())
                for first in paragraph[:-1]
                if indent_width(first) <= depth
            )
        paragraph = []
    return next((b for a, b in spaced if (a, b) in ended), None)


def _pairs_past_blanks(text: list[str], wanted: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The pairs of `wanted` (stripped lines) that `text` holds with only blank lines between
    them."""
    stripped = list(map(str.strip, text))
    seconds = {b for _, b in wanted}
    pairs: set[tuple[str, str]] = set()
    for k in [k for k, line in enumerate(stripped) if line in seconds]:
        j = k - 1
        while j >= 0 and not stripped[j]:
            j -= 1
        if 0 <= j < k - 1 and (stripped[j], stripped[k]) in wanted:
            pairs.add((stripped[j], stripped[k]))
    return pairs


_OPENS_BLOCK = ("{", ":")
# What goes on a statement at its own depth: its closer, or the next branch of it.
_GOES_ON = ("}", ")", "]", "else", "elif", "except", "finally", "catch")


def _whole_body(after: list[str], start: int, end: int) -> bool:
    """Whether merged lines [start, end) are a block's whole body, between the line that opens
    the block and the shallower line after it, written as one statement (its other lines
    deeper, or its closer or next branch): a body of one statement has no place for a blank
    line, so the blank lines of the body it replaces go with it."""
    if start == 0 or end >= len(after):
        return False
    body = after[start:end]
    opener, closer = after[start - 1], after[end]
    if not all(line.strip() for line in body) or not opener.strip() or not closer.strip():
        return False
    depth = indent_width(body[0])
    if not opener.rstrip().endswith(_OPENS_BLOCK) or indent_width(opener) >= depth:
        return False
    if indent_width(closer) >= depth:
        return False
    return all(
        indent_width(line) > depth
        or (indent_width(line) == depth and line.strip().startswith(_GOES_ON))
        for line in body[1:]
    )


_OPENS = ("{", "(", "[", ":")  # how a line that opens a block (or a bracket) ends


def _run_together(block: list[str]) -> Iterator[int]:
    """The indices in `block` (new lines, no blank line among them) of a line that starts a
    statement right after the line before it ends a block (a closer at its depth, or a deeper
    line) or that opens a block right after a simple statement at its depth: where an author
    writing the lines anew most often sets the two apart, and a sketch without blank lines
    cannot say. Comments, decorators and attributes before it, and lines that go on a
    statement (closers, `else` and its kind), are not such starts."""
    for k in range(1, len(block)):
        first, second = block[k - 1].strip(), block[k].strip()
        if not first or not second or first.startswith(NOT_CODE):
            continue
        if second.startswith((*_GOES_ON, "case", "default")):
            continue
        depth, was = indent_width(block[k]), indent_width(block[k - 1])
        ended = first.startswith(CLOSING_BRACKETS) and not first.endswith(_OPENS)
        if depth == was and ended:
            yield k
            continue
        opens = second.endswith(_OPENS) and not second.startswith(NOT_CODE)
        if (
            depth == was
            and opens
            and not ended
            and not first.endswith(_OPENS)
            and not _tests_what_it_binds(first, second)
        ):
            yield k


_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_BINDS = re.compile(r"^(.*?)(?::=|(?<![=!<>:])=(?!=))")  # what an assignment's left side holds


def _tests_what_it_binds(first: str, second: str) -> bool:
    """Whether the block `second` opens names what statement `first` binds (its assignment's
    left side, or the names it imports): a value made and tested at once reads as one step,
    and is most often written without a blank line between."""
    bound = _BINDS.match(first)
    if bound:
        names = set(_WORD.findall(bound.group(1)))
    elif " import " in f" {first}":
        names = set(_WORD.findall(first.split("import", 1)[1]))
    else:
        return False
    return bool(names & set(_WORD.findall(second)))


def _spaced_block(after: list[str], at: int) -> bool:
    """Whether the block around merged line `at` (the lines about it no shallower than it)
    holds a blank line: a block written with blank lines sets statements apart."""
    depth = indent_width(after[at])
    for step in (-1, 1):
        k = at
        while 0 <= k < len(after):
            line = after[k]
            if not line.strip():
                return True
            if indent_width(line) < depth:
                break
            k += step
    return False


def _joins_needed(lines: list[str], marked: bool) -> int:
    """How many joined places make a sketch without blank lines (with a marker where
    `marked`) read as one that dropped them (see `blankless_doubt`)."""
    if not shows_no_blank(lines):
        return JOINED
    return 0 if marked else 1


def _insert_spots(before: list[str], block: list[str], at: int) -> list[int]:
    """Where an inserted block could go as well as at `at`: a block that begins with the line
    after it (or ends with the line before it) reads the same shifted past that line, and the
    diff picks one of those alignments, so each is a place it may take; one where the shifted
    block begins or ends with a blank line is not, as it brings its own spacing there."""
    spots = [at]
    size = len(block)
    for s in range(size):  # shifted right past s + 1 lines: block[s + 1:] + block[: s + 1]
        if at + s >= len(before) or block[s] != before[at + s]:
            break
        if block[(s + 1) % size].strip() and block[s].strip():
            spots.append(at + s + 1)
    for s in range(size):  # shifted left past s + 1 lines: block[-s - 1:] + block[: -s - 1]
        if at - s - 1 < 0 or block[size - 1 - s] != before[at - s - 1]:
            break
        if block[size - 1 - s].strip() and block[size - 2 - s].strip():
            spots.append(at - s - 1)
    return spots
