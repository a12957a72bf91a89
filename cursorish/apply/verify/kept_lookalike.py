"""An original line a marker keeps right beside new lines, assigning the very value one of the
new lines assigns under another name (`old = f(x)` kept above `new = f(x)`): the new line
reads as its replacement (a variable renamed), kept only because the marker's edge was
guessed one line too far."""

from __future__ import annotations

import re

from cursorish.apply.verify.kept_beside import new_runs_beside_kept

# `name = value`, `const name: T = value`, `self.name = value`: the name and the value.
_ASSIGNMENT = re.compile(
    r"\s*(?:(?:export\s+)?(?:const|let|var)\s+)?([\w$.]+)\s*(?::[^=]+)?(?<![=!<>+\-*/%&|^])="
    r"(?!=)\s*(.+?)\s*;?$"
)
_VALUE_LENGTH = 16  # a value this long, written twice beside itself, is one statement's


def _assigned(line: str) -> tuple[str, str] | None:
    match = _ASSIGNMENT.match(line)
    if not match or len(match.group(2)) < _VALUE_LENGTH or "(" not in match.group(2):
        return None
    return match.group(1), match.group(2)


def _kept_lookalike(
    before: list[str], after: list[str], old_of: list[int], shown: set[str]
) -> str | None:
    """A kept original line the sketch does not show, next (past blank lines) to a run of new
    lines, that assigns the same call as one of those new lines to another name."""
    if len(old_of) != len(after):
        return None
    for run, beside in new_runs_beside_kept(after, old_of, shown):
        values: dict[str, str] = {}
        for x in run:
            got = _assigned(after[x]) if old_of[x] < 0 else None
            if got:
                values[got[1]] = got[0]
        for p in beside:
            got = _assigned(after[p])
            if got and got[1] in values and values[got[1]] != got[0]:
                return (
                    f"the merge keeps original line {old_of[p] + 1} ({got[0]} = ...) right "
                    f"beside the sketch's new {values[got[1]]} = ... of the same value, "
                    "which may replace it"
                )
    return None
