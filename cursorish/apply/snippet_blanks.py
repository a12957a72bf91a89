"""Blank lines a snippet's new code leaves to a guess: planners drop blank lines from a sketch
written without any marker, so where such a snippet writes new code between two original lines
the result keeps, and the original had blank lines between them, whether those blank lines go
before, after or in the new code (or go at all) is not in the sketch. Only the deterministic
snippet merge asks (a model's answer spaces the code its own way)."""

from __future__ import annotations

import itertools
import re

from cursorish.apply.verify.alignment import _diff

_COMMENT = re.compile(r"^\s*(?:#|//|/\*|\*|--)")


def guessed_blanks(before: list[str], after: list[str], spaced: bool) -> str | None:
    """The reason to refuse a snippet's merge that moves, adds or drops blank lines around its
    new code: between two non-blank original lines the result keeps, new code in place of an
    original stretch that has blank lines, where the result does not open and close on a blank
    line as the original did there, or, for a snippet that writes no blank line at all (not
    `spaced`: it dropped them), does not write as many blank lines there as the original had."""
    old_of = _diff(before, after)
    rows = [r for r, j in enumerate(old_of) if j >= 0 and after[r].strip()]
    for r1, r2 in itertools.pairwise(rows):
        j1, j2 = old_of[r1], old_of[r2]
        if not any(after[r].strip() and old_of[r] < 0 for r in range(r1 + 1, r2)):
            continue  # no new code here: the sketch shows a deletion between kept lines
        # A comment right on a kept line belongs with that line, the old one and the new one.
        old = _uncommented(before[j1 + 1 : j2])
        new = _uncommented(after[r1 + 1 : r2])
        if not any(map(_blank, old)):
            continue
        same = bool(new) and _blank(old[0]) == _blank(new[0]) and _blank(old[-1]) == _blank(new[-1])
        if same and not spaced:
            same = sum(map(_blank, old)) == sum(map(_blank, new))
        if not same:
            return (
                f"the snippet writes new code between original lines {j1 + 1} and {j2 + 1}, "
                "which had blank lines between them, and the merge spaces it otherwise: a "
                "sketch without markers may drop blank lines, so where they go is a guess"
            )
    return None


def _uncommented(lines: list[str]) -> list[str]:
    """The lines without the comment lines they end with."""
    end = len(lines)
    while end and _COMMENT.match(lines[end - 1]):
        end -= 1
    return lines[:end]


def _blank(line: str) -> bool:
    return not line.strip()
