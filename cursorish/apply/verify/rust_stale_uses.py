"""Rust: a top-level `use` a marker kept (the sketch does not show it) whose every name the
original used and the merged file uses nowhere: the sketch took out the last use, and whether
the `use` goes with it is not said."""

from __future__ import annotations

import re
from collections import Counter

from cursorish.apply.verify.rust_uses import _rust_use_names

_USE = re.compile(r"^(?:pub(?:\([^)]*\))?\s+)?use\s")
# A name as code uses what a `use` binds: not a path's later segment or a field.
_WORD = re.compile(r"(?<![\w.:])[A-Za-z_]\w*")


def _words(lines: list[str], skip: set[int]) -> set[str]:
    """The names (no later path segments) of the lines outside `skip` and outside `//`
    comment lines."""
    found: set[str] = set()
    for i, line in enumerate(lines):
        if i in skip or line.lstrip().startswith("//"):
            continue
        found.update(_WORD.findall(line))
    return found


def _uses(lines: list[str]) -> list[tuple[list[int], list[str]]]:
    """Each top-level one-statement `use` (its line indices, the names it binds)."""
    found: list[tuple[list[int], list[str]]] = []
    i = 0
    while i < len(lines):
        if _USE.match(lines[i]):
            end = i
            while end < len(lines) - 1 and end - i < 50 and ";" not in lines[end]:
                end += 1
            text = "\n".join(lines[i : end + 1])
            if "*" not in text:
                found.append((list(range(i, end + 1)), _rust_use_names(text)))
            i = end + 1
            continue
        i += 1
    return found


def _stale_rust_use(before: list[str], after: list[str], lang: str, shown: set[str]) -> str | None:
    """A `use` the merge keeps, not shown in the sketch, binding names the original's code
    used and the merged file's code uses nowhere. `shown`: the sketch's lines, stripped."""
    if lang != "rust":
        return None
    uses = _uses(after)
    kept = [
        (rows, names)
        for rows, names in uses
        if names and not any(after[r].strip() in shown for r in rows)
    ]
    # Only a name some removed original line names can have lost its last use (most merges
    # remove few lines: the whole file is scanned only where such a name is found).
    removed = _words(list((Counter(before) - Counter(after)).elements()), set())
    kept = [(rows, names) for rows, names in kept if all(n in removed for n in names)]
    if not kept:
        return None
    skip = {r for rows, _ in uses for r in rows}
    now = _words(after, skip)
    gone = [(rows, names) for rows, names in kept if not any(n in now for n in names)]
    if not gone:
        return None
    then = _words(before, {r for rows, _ in _uses(before) for r in rows})
    for rows, names in gone:
        if all(n in then for n in names):
            return (
                f"the merge keeps {after[rows[0]].strip()!r} though it removes every use of "
                f"{', '.join(names)}: the sketch does not say whether the `use` goes too"
            )
    return None
