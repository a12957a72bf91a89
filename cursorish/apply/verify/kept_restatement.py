"""An original statement a marker keeps right beside new lines that restate it: a new `assert`
(`return`, `raise`) at the same depth naming every name the old one names. The new statement
reads as its rewrite, kept only because the marker's edge was guessed one line short; two
`return`s in a row leave the second dead, and two asserts of the same names check one thing
twice."""

from __future__ import annotations

import re

from cursorish.apply.lines import indent_width
from cursorish.apply.verify.kept_beside import new_runs_beside_kept

_KEYWORD = re.compile(r"\s*(assert|return|raise)\b")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_NAME = re.compile(r"[A-Za-z_]\w*")


def _names(line: str) -> set[str]:
    return set(_NAME.findall(_STRING.sub("", line))) - {"assert", "return", "raise"}


def _restated(old: str, new_rows: list[int], after: list[str]) -> bool:
    """Whether a new row at `old`'s depth starts with its keyword, and the new rows name every
    name `old` names (outside its strings; one name at least)."""
    match = _KEYWORD.match(old)
    if not match:
        return False
    names = _names(old)
    if not names:
        return False
    width = indent_width(old)
    same = [
        r
        for r in new_rows
        if indent_width(after[r]) == width
        and (m := _KEYWORD.match(after[r]))
        and m.group(1) == match.group(1)
    ]
    if not same:
        return False
    written: set[str] = set()
    for r in new_rows:
        written |= _names(after[r])
    return names <= written


def _kept_restatement(
    before: list[str], after: list[str], old_of: list[int], shown: set[str]
) -> str | None:
    """A kept original line the sketch does not show, next (past blank lines) to a run of new
    lines that restates it (`_restated`)."""
    if len(old_of) != len(after):
        return None
    if not any(_KEYWORD.match(after[r]) for r, j in enumerate(old_of) if j < 0):
        return None  # no new statement to restate one: cheap, and true of most merges
    for run, beside in new_runs_beside_kept(after, old_of, shown):
        rows = [x for x in run if old_of[x] < 0 and after[x].strip()]
        for p in beside:
            if _restated(after[p], rows, after):
                return (
                    f"the merge keeps original line {old_of[p] + 1} ({after[p].strip()[:40]!r}) "
                    "right beside the sketch's new lines, which restate it: they may replace it"
                )
    return None
