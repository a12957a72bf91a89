"""A definition the sketch deletes together with the last use of its name.

The guard refuses a merge that deletes a definition the sketch never mentions: a chunk placed
over the wrong lines loses code that way. One case is no such loss: the chunk shows the lines
on both sides of the deleted lines (a telling line before them, one after them, no marker
between, only new lines that take their place if any), so it deletes what lies between on
purpose; and the sketch's edit also removes every other use of the definition's name in
code, so the file no longer needs it (or the file never used it: a private `_name`/`#name`
named nowhere outside it is dead code). A weak edge line (`}`, `)`) counts where the sketch
shows it together with the telling line beside it.
"""

from __future__ import annotations

import re

from cursorish.apply.align import STRONG
from cursorish.apply.languages import Language
from cursorish.apply.lines import key, weight
from cursorish.apply.markers import is_marker
from cursorish.apply.structure import Definition

_EDGE_LINES = 7  # up to six weak lines (`}`, `)`, `));`) plus the telling one beside them
_COMMENTS = ("//", "#", "/*", "*", "--", '"""')


def dropped_with_last_use(
    definition: Definition, lines: list[str], sketch: list[str], gone: set[int], lang: Language
) -> bool:
    """Whether the original used the definition's name outside it in code (the caller knows
    the merge and the sketch no longer do) and the sketch shows the kept telling lines right
    before and right after the deleted lines around the definition, in that order with no
    marker between them (only new lines, if any, that take the deleted lines' place). A
    private definition the file names nowhere outside it (dead code) needs no use removed."""
    named = re.compile(rf"(?<![\w$]){re.escape(definition.name)}(?![\w$])")
    naming = [
        line
        for j, line in enumerate(lines)
        if not definition.start <= j <= definition.end and named.search(line)
    ]
    used = any(not line.lstrip().startswith(_COMMENTS) for line in naming)
    if not used and (naming or not _private(definition.name)):
        return False  # no use in code removed (a comment naming it may be its own doc)
    low = definition.start - 1
    while low >= 0 and (low in gone or not lines[low].strip()):
        low -= 1
    high = definition.end + 1
    while high < len(lines) and (high in gone or not lines[high].strip()):
        high += 1
    shown = [None if is_marker(line, lang) else key(line) for line in sketch if line.strip()]
    if low < 0 and high >= len(lines):
        return False
    if low < 0 or high >= len(lines):
        return _at_file_edge(lines, (low, high), gone, shown)
    before = _edge(lines, low, -1, gone)
    after = _edge(lines, high, 1, gone)
    if not before or not after:
        return False  # a `}` or `)` could be any block's
    for i in range(len(shown) - len(before) + 1):
        if shown[i : i + len(before)] != before:
            continue
        rest = i + len(before)
        while rest < len(shown) and shown[rest] is not None:
            if shown[rest : rest + len(after)] == after:
                return True
            rest += 1
    return False


def _at_file_edge(
    lines: list[str], bounds: tuple[int, int], gone: set[int], shown: list[str | None]
) -> bool:
    """A definition deleted with everything after it (before it) to the file's end (start):
    the sketch shows the kept telling lines right before (after) the deleted lines and from
    them on to its end (start) no marker, only new lines that take their place if any, so it
    shows the file's edge there, the lines beyond it gone."""
    low, high = bounds
    if high >= len(lines):
        edge = _edge(lines, low, -1, gone)
        return bool(edge) and any(
            shown[i : i + len(edge)] == edge and None not in shown[i:]
            for i in range(len(shown) - len(edge) + 1)
        )
    edge = _edge(lines, high, 1, gone)
    return bool(edge) and any(
        shown[i : i + len(edge)] == edge and None not in shown[:i]
        for i in range(len(shown) - len(edge) + 1)
    )


def _edge(lines: list[str], start: int, step: int, gone: set[int]) -> list[str | None]:
    """The kept non-blank lines from `start` away from the deleted lines up to the first
    telling one (a `}` alone could be any block's), in file order; empty if none is near."""
    found: list[str | None] = []
    j = start
    while 0 <= j < len(lines) and len(found) < _EDGE_LINES:
        if j not in gone and lines[j].strip():
            line_key = key(lines[j])
            found.append(line_key)
            if weight(line_key) >= STRONG:
                return found[::-1] if step < 0 else found
        j += step
    return []


def _private(name: str) -> bool:
    """Whether a name is private to its file (`_name`, `#name`; not a `__dunder__`): named
    nowhere else in the file, such a definition is dead code, which a sketch showing the lines
    around it deletes."""
    return name.startswith(("_", "#")) and not name.startswith("__")
