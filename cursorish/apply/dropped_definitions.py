"""A definition the sketch deletes together with the last use of its name.

The guard refuses a merge that deletes a definition the sketch never mentions: a chunk placed
over the wrong lines loses code that way. One case is no such loss: the chunk shows the lines
on both sides of the deleted lines (a telling line before them, one after them, no marker
between, only new lines that take their place if any), so it deletes what lies between on
purpose; and the sketch's edit also removes every other use of the definition's name in
code, so the file no longer needs it.
"""

from __future__ import annotations

import re

from cursorish.apply.align import STRONG
from cursorish.apply.languages import Language
from cursorish.apply.lines import key, weight
from cursorish.apply.markers import is_marker
from cursorish.apply.structure import Definition

_COMMENTS = ("//", "#", "/*", "*", "--", '"""')


def dropped_with_last_use(
    definition: Definition, lines: list[str], sketch: list[str], gone: set[int], lang: Language
) -> bool:
    """Whether the original used the definition's name outside it in code (the caller knows
    the merge and the sketch no longer do) and the sketch shows the kept telling lines right
    before and right after the deleted lines around the definition, in that order with no
    marker between them (only new lines, if any, that take the deleted lines' place)."""
    named = re.compile(rf"(?<![\w$]){re.escape(definition.name)}(?![\w$])")
    if not any(
        named.search(line) and not line.lstrip().startswith(_COMMENTS)
        for j, line in enumerate(lines)
        if not definition.start <= j <= definition.end
    ):
        return False  # no use in code removed (a comment naming it may be its own doc)
    low = definition.start - 1
    while low >= 0 and (low in gone or not lines[low].strip()):
        low -= 1
    high = definition.end + 1
    while high < len(lines) and (high in gone or not lines[high].strip()):
        high += 1
    if low < 0 or high >= len(lines):
        return False
    before, after = key(lines[low]), key(lines[high])
    if weight(before) < STRONG or weight(after) < STRONG:
        return False  # a `}` or `)` could be any block's
    shown_before = False  # the line before was shown, with no marker since
    for line in sketch:
        if is_marker(line, lang):
            shown_before = False
        elif key(line) == after and shown_before:
            return True
        elif key(line) == before:
            shown_before = True
    return False
