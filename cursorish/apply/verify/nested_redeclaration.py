"""A definition the merge writes inside the original definition of the same name: the sketch's
new version of a block, read one level deeper (its lines matched to the old block's body), is
left nested in the block it was meant to replace."""

from __future__ import annotations

import re

from cursorish.apply.lines import indent_width as _width

_DECLARES = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?"
    r"(?:def|class|function\*?|fn|func|const|let|var)\s+([A-Za-z_$][\w$]*)\b"
)


def _nested_redeclaration(before: list[str], after: list[str], old_of: list[int]) -> str | None:
    """A new line declaring a name inside (deeper than, with nothing as shallow between) a kept
    original line declaring that same name, where the original declares it once."""
    if len(old_of) != len(after):
        return None
    counts: dict[str, int] | None = None
    for r, line in enumerate(after):
        if old_of[r] >= 0:
            continue
        match = _DECLARES.match(line)
        if not match:
            continue
        name = match.group(1)
        outer = _enclosing_declaration(after, old_of, r, name)
        if outer is None:
            continue
        if counts is None:
            counts = {}
            for old in before:
                found = _DECLARES.match(old)
                if found:
                    counts[found.group(1)] = counts.get(found.group(1), 0) + 1
        if counts.get(name, 0) != 1:
            continue
        return (
            f"merged line {r + 1} declares {name!r} inside the original declaration of "
            f"{name!r} (merged line {outer + 1}) that it was meant to replace"
        )
    return None


def _enclosing_declaration(after: list[str], old_of: list[int], r: int, name: str) -> int | None:
    """The kept original line that opens a block around row r and declares `name`, if any. A
    header's closing line (`): T => {`) at the header's depth leads on to the header."""
    least = _width(after[r])
    closing = False
    for j in range(r - 1, -1, -1):
        line = after[j]
        text = line.strip()
        if not text:
            continue
        width = _width(line)
        if width < least or (closing and width == least):
            match = _DECLARES.match(line)
            if match and match.group(1) == name and old_of[j] >= 0:
                return j
            closing = text[0] in ")]}"
            least = width
            if least == 0 and not closing:
                return None
    return None
